#include "distributed/sharding/distributed_optimizer.h"

#include <stdexcept>
#include <string>

#include "distributed/sharding/sharding_variants.h"

namespace stepscope::distributed {

namespace detail {

void check_new_parameters(const std::vector<at::Tensor>& parameters, std::unordered_set<const void*>& known) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (!parameters[i].defined()) throw std::invalid_argument("parameter " + std::to_string(i) + " of the group is undefined");
    if (!known.insert(parameters[i].unsafeGetTensorImpl()).second) {
      throw std::invalid_argument("parameter " + std::to_string(i) + " of the group is already in a group");
    }
  }
}

int64_t moment_bytes(const AdamW& optimizer) {
  int64_t bytes = 0;
  for (size_t i = 0; i < optimizer.size(); ++i) {
    for (const at::Tensor* m : {&optimizer.first_moment(i), &optimizer.second_moment(i)}) {
      if (m->defined()) bytes += m->numel() * static_cast<int64_t>(m->element_size());
    }
  }
  return bytes;
}

void append_moments(const AdamW& optimizer, std::vector<at::Tensor>& out) {
  for (size_t i = 0; i < optimizer.size(); ++i) {
    for (const at::Tensor* m : {&optimizer.first_moment(i), &optimizer.second_moment(i)}) {
      if (m->defined()) out.push_back(*m);
    }
  }
}

}  // namespace detail

std::unique_ptr<DistributedOptimizer> make_distributed_optimizer(OptimizerSharding sharding, const GradientSync& sync,
                                                                 std::vector<ParameterGroup> groups,
                                                                 Communicator& comm) {
  std::unique_ptr<DistributedOptimizer> optimizer;
  switch (sharding) {
    case OptimizerSharding::none: optimizer = detail::make_replicated_optimizer(); break;
    case OptimizerSharding::sharded: optimizer = detail::make_parameter_sharded_optimizer(comm); break;
    case OptimizerSharding::zero1: optimizer = detail::make_zero1_optimizer(sync, comm); break;
  }
  for (auto& group : groups) optimizer->add_param_group(std::move(group));
  return optimizer;
}

std::unique_ptr<DistributedOptimizer> make_fused_distributed_optimizer(at::Tensor flat, std::vector<at::Tensor> parameters,
                                                                       at::Tensor compute_copy, AdamWOptions options) {
  return detail::make_fused_replicated_optimizer(std::move(flat), std::move(parameters), std::move(compute_copy), options);
}

}  // namespace stepscope::distributed
