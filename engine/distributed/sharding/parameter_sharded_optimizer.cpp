// "sharded", the seeds' design: each parameter is assigned whole to one rank, the largest first
// to the least loaded rank (the same on every rank), so each rank holds about 1/N of the state.
// The owner steps it from the all-reduced gradient and broadcasts the new values.
#include <algorithm>
#include <numeric>

#include <ATen/ATen.h>

#include "distributed/sharding/sharding_variants.h"

namespace stepscope::distributed::detail {

namespace {

class ParameterShardedOptimizer final : public DistributedOptimizer {
 public:
  explicit ParameterShardedOptimizer(Communicator& comm) : comm_(comm), load_(static_cast<size_t>(comm.size()), 0) {}

  OptimizerSharding sharding() const override { return OptimizerSharding::sharded; }

  void step(const GradientSync& /*sync*/) override {
    for (auto& group : groups_) group.mine->step();
    at::NoGradGuard no_grad;
    // All started before any wait: one round of latency, not one per parameter.
    std::vector<std::unique_ptr<PendingCollective>> pending;
    for (auto& group : groups_) {
      for (size_t i = 0; i < group.parameters.size(); ++i) {
        at::Tensor data = group.parameters[i].detach();  // shares the storage: written in place
        pending.push_back(comm_.broadcast(data, group.owners[i]));
      }
    }
    for (auto& work : pending) work->wait();
  }

  void add_param_group(ParameterGroup group) override {
    check_new_parameters(group.parameters, known_);
    Group g;
    g.parameters = std::move(group.parameters);
    g.owners.assign(g.parameters.size(), 0);
    std::vector<size_t> order(g.parameters.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return g.parameters[a].numel() > g.parameters[b].numel(); });
    std::vector<at::Tensor> mine;
    for (size_t i : order) {
      const auto least = std::min_element(load_.begin(), load_.end()) - load_.begin();
      g.owners[i] = static_cast<int>(least);
      load_[static_cast<size_t>(least)] += g.parameters[i].numel();
    }
    for (size_t i = 0; i < g.parameters.size(); ++i) {
      if (g.owners[i] == comm_.rank()) mine.push_back(g.parameters[i]);
    }
    g.mine = std::make_unique<AdamW>(std::move(mine), group.options);
    groups_.push_back(std::move(g));
  }

  std::vector<at::Tensor> state_tensors() const override {
    std::vector<at::Tensor> out;
    for (const auto& group : groups_) append_moments(*group.mine, out);
    return out;
  }

  int64_t state_bytes() const override {
    int64_t bytes = 0;
    for (const auto& group : groups_) bytes += moment_bytes(*group.mine);
    return bytes;
  }

 private:
  struct Group {
    std::vector<at::Tensor> parameters;
    std::vector<int> owners;
    std::unique_ptr<AdamW> mine;  // over this rank's parameters only
  };

  Communicator& comm_;
  std::vector<int64_t> load_;  // elements assigned to each rank
  std::vector<Group> groups_;
  std::unordered_set<const void*> known_;
};

}  // namespace

std::unique_ptr<DistributedOptimizer> make_parameter_sharded_optimizer(Communicator& comm) {
  return std::make_unique<ParameterShardedOptimizer>(comm);
}

}  // namespace stepscope::distributed::detail
