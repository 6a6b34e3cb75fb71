// "adamw": plain data parallelism, every rank holds every state and updates every parameter
// from the all-reduced gradients; nothing to communicate. Two forms: AdamW over parameter
// groups (the eager model), and the fused engine's, whose parameters are views of one flat
// buffer: one FusedAdamW pass over it (reading each mean gradient where the gradient sync left
// it: a bucket, the flat buffer, a tensor of its own) that also refreshes the compute copy.
#include <stdexcept>
#include <unordered_set>

#include "distributed/sharding/sharding_variants.h"
#include "model/fused/fused_adamw.h"

namespace stepscope::distributed::detail {

namespace {

class ReplicatedOptimizer final : public DistributedOptimizer {
 public:
  OptimizerSharding sharding() const override { return OptimizerSharding::none; }

  void step(const GradientSync& /*sync*/) override {
    for (auto& group : groups_) group->step();
  }

  void add_param_group(ParameterGroup group) override {
    check_new_parameters(group.parameters, known_);
    groups_.push_back(std::make_unique<AdamW>(std::move(group.parameters), group.options));
  }

  std::vector<at::Tensor> state_tensors() const override {
    std::vector<at::Tensor> out;
    for (const auto& group : groups_) append_moments(*group, out);
    return out;
  }

  int64_t state_bytes() const override {
    int64_t bytes = 0;
    for (const auto& group : groups_) bytes += moment_bytes(*group);
    return bytes;
  }

 private:
  std::vector<std::unique_ptr<AdamW>> groups_;
  std::unordered_set<const void*> known_;
};

class FusedReplicatedOptimizer final : public DistributedOptimizer {
 public:
  FusedReplicatedOptimizer(at::Tensor flat, std::vector<at::Tensor> parameters, at::Tensor compute_copy,
                           AdamWOptions options)
      : adamw_(std::move(flat), std::move(parameters), std::move(compute_copy), options) {}

  OptimizerSharding sharding() const override { return OptimizerSharding::none; }

  void step(const GradientSync& /*sync*/) override { adamw_.step(); }

  void add_param_group(ParameterGroup /*group*/) override {
    throw std::invalid_argument(
        "the fused optimizer updates its flat buffer with one set of hyper-parameters: it takes no more groups");
  }

  std::vector<at::Tensor> state_tensors() const override {
    std::vector<at::Tensor> out;
    for (const at::Tensor* m : {&adamw_.first_moment(), &adamw_.second_moment()}) {
      if (m->defined()) out.push_back(*m);
    }
    return out;
  }

  int64_t state_bytes() const override {
    int64_t bytes = 0;
    for (const auto& m : state_tensors()) bytes += m.numel() * static_cast<int64_t>(m.element_size());
    return bytes;
  }

 private:
  fused::FusedAdamW adamw_;
};

}  // namespace

std::unique_ptr<DistributedOptimizer> make_replicated_optimizer() { return std::make_unique<ReplicatedOptimizer>(); }

std::unique_ptr<DistributedOptimizer> make_fused_replicated_optimizer(at::Tensor flat, std::vector<at::Tensor> parameters,
                                                                      at::Tensor compute_copy, AdamWOptions options) {
  return std::make_unique<FusedReplicatedOptimizer>(std::move(flat), std::move(parameters), std::move(compute_copy),
                                                    options);
}

}  // namespace stepscope::distributed::detail
