// "adamw": plain data parallelism, every rank holds every state and updates every parameter
// from the all-reduced gradients; nothing to communicate.
#include <stdexcept>
#include <unordered_set>

#include "distributed/sharding/sharding_variants.h"

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

}  // namespace

std::unique_ptr<DistributedOptimizer> make_replicated_optimizer() { return std::make_unique<ReplicatedOptimizer>(); }

}  // namespace stepscope::distributed::detail
