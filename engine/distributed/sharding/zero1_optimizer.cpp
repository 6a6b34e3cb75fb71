// "zero1", ZeRO stage 1: the gradient sync reduce-scatters every unit (parameter, flat buffer or
// bucket, padded to the ranks), so this rank holds the mean gradient of its even share of each.
// It keeps AdamW's moments for that share only, updates the parameter elements in it, and the
// units' shares are all-gathered back into every rank's parameters: with the reduce-scatter,
// the communication of one all-reduce, as plain DDP. The parameters live in one buffer per unit,
// laid out as the unit's gradients (as FSDP's flat parameters), so each share is updated and
// gathered in place: no copy into a gather buffer and none out of it.
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <ATen/ATen.h>

#include "distributed/sharding/sharding_variants.h"

namespace stepscope::distributed::detail {

namespace {

// Where a shard and a parameter overlap: elements [shard_from, shard_from + numel) of the shard,
// [parameter_from, ...) of the flattened parameter.
struct Overlap {
  size_t parameter;
  int64_t shard_from, parameter_from, numel;
};

std::vector<Overlap> overlaps(const GradientShard& shard) {
  std::vector<Overlap> out;
  const int64_t first = shard.shard_offset, last = shard.shard_offset + shard.shard_numel;
  for (const UnitPiece& piece : shard.pieces) {
    const int64_t from = std::max(first, piece.unit_offset), to = std::min(last, piece.unit_offset + piece.numel);
    if (from < to) out.push_back({piece.parameter, from - first, from - piece.unit_offset, to - from});
  }
  return out;
}

class Zero1Optimizer final : public DistributedOptimizer {
 public:
  Zero1Optimizer(const GradientSync& sync, Communicator& comm)
      : parameters_(sync.parameters()), comm_(comm), group_of_(parameters_.size(), -1) {
    if (sync.reduction() != GradientReduction::reduce_scatter) {
      throw std::invalid_argument("zero1 needs a gradient sync that reduce-scatters");
    }
    for (size_t i = 0; i < parameters_.size(); ++i) index_of_[parameters_[i].unsafeGetTensorImpl()] = i;
    at::NoGradGuard no_grad;
    for (const GradientUnit& unit : sync.units()) place_in_buffer(unit);
  }

  OptimizerSharding sharding() const override { return OptimizerSharding::zero1; }

  void step(const GradientSync& sync) override {
    if (sync.reduction() != GradientReduction::reduce_scatter) {
      throw std::logic_error("zero1 needs a gradient sync that reduce-scatters");
    }
    finish_pending();  // a step without a forward pass since the last one
    at::NoGradGuard no_grad;
    // Every group takes a step on every rank, so bias corrections agree across ranks.
    for (auto& group : groups_) ++group.t;
    // Units in batches of about a multi-tensor chunk: one AdamW update per group and batch (per
    // unit, hundreds of 25 MiB buckets made the phase launch-bound). Not deferred, a batch's
    // all-gathers start after its update and run under the next batch's.
    int64_t batch_limit = std::numeric_limits<int64_t>::max();
    for (const Group& group : groups_) batch_limit = std::min(batch_limit, group.options.chunk_elements);
    std::vector<const GradientShard*> batch;
    int64_t batch_elements = 0;
    const auto flush = [&] {
      update_shares(batch);
      for (const GradientShard* shard : batch) {
        pending_.push_back(prepare_gather(*shard));
        if (stage_of_.empty()) start(pending_.back());
      }
      batch.clear();
      batch_elements = 0;
    };
    for (const GradientShard& shard : sync.shards()) {
      if (!batch.empty() && batch_elements + shard.shard_numel > batch_limit) flush();
      batch.push_back(&shard);
      batch_elements += shard.shard_numel;
    }
    if (!batch.empty()) flush();
    if (stage_of_.empty()) finish_pending();
  }

  void defer_gathers_to_forward(std::vector<int> stage_of_parameter) override {
    if (stage_of_parameter.size() != parameters_.size()) {
      throw std::invalid_argument("zero1: " + std::to_string(stage_of_parameter.size()) + " stages for " +
                                  std::to_string(parameters_.size()) + " parameters");
    }
    finish_pending();
    stage_of_ = std::move(stage_of_parameter);
  }

  void begin_forward() override {
    // The embeddings' unit first: the forward pass needs it first. Buckets are in reverse
    // parameter order, so this is mostly the reverse of the update order.
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const Gather& a, const Gather& b) { return a.first_stage < b.first_stage; });
    for (Gather& g : pending_) {
      if (!g.work) start(g);
    }
  }

  void before_stage(int stage) override {
    for (Gather& g : pending_) {
      if (g.first_stage <= stage) finish(g);
    }
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [](const Gather& g) { return g.done; }),
                   pending_.end());
  }

  void finish_pending() override {
    for (Gather& g : pending_) {
      if (!g.work) start(g);
    }
    for (Gather& g : pending_) finish(g);
    pending_.clear();
  }

  void add_param_group(ParameterGroup group) override {
    const int g = static_cast<int>(groups_.size());
    check_adamw_options(group.options);
    for (size_t k = 0; k < group.parameters.size(); ++k) {
      const auto it = index_of_.find(group.parameters[k].unsafeGetTensorImpl());
      if (it == index_of_.end()) {
        throw std::invalid_argument("zero1: parameter " + std::to_string(k) +
                                    " of the group is not one the gradient sync reduces");
      }
      if (group_of_[it->second] >= 0) {
        throw std::invalid_argument("parameter " + std::to_string(k) + " of the group is already in a group");
      }
    }
    for (const auto& p : group.parameters) group_of_[index_of_.at(p.unsafeGetTensorImpl())] = g;
    groups_.push_back({group.options, 0});
  }

  std::vector<at::Tensor> state_tensors() const override {
    std::vector<at::Tensor> out;
    for (const auto& [unit, moments] : moments_) out.insert(out.end(), {moments.m, moments.v});
    return out;
  }

  int64_t state_bytes() const override {
    int64_t bytes = 0;
    for (const auto& [unit, moments] : moments_) {
      bytes += 2 * moments.m.numel() * static_cast<int64_t>(moments.m.element_size());
    }
    return bytes;
  }

 private:
  struct Group {
    AdamWOptions options;
    int64_t t;
  };
  struct Moments {
    at::Tensor m, v;  // [shard_numel] of their unit
  };

  at::Tensor flat(size_t parameter) const { return parameters_[parameter].detach().view({-1}); }

  // The unit's parameters become views of one buffer laid out as its gradients, padding zero.
  // set_data keeps each parameter's identity (the model's modules, autograd's hooks and
  // accumulators hold the same tensors); only their storage moves.
  void place_in_buffer(const GradientUnit& unit) {
    if (unit.pieces.empty()) return;
    const at::Tensor& first = parameters_[unit.pieces.front().parameter];
    at::Tensor buffer = at::zeros({unit.numel}, first.options().requires_grad(false));
    for (const UnitPiece& piece : unit.pieces) {
      at::Tensor& p = parameters_[piece.parameter];
      at::Tensor view = buffer.narrow(0, piece.unit_offset, piece.numel).view(p.sizes());
      view.copy_(p.detach());
      p.set_data(view);
    }
    buffers_.emplace(unit.pieces.front().parameter, std::move(buffer));
  }

  Moments& moments_for(const GradientShard& shard) {
    auto it = moments_.find(shard.unit);
    if (it == moments_.end()) {
      const auto options = shard.gradient.options();
      it = moments_.emplace(shard.unit, Moments{at::zeros({shard.shard_numel}, options),
                                                at::zeros({shard.shard_numel}, options)}).first;
    }
    return it->second;
  }

  // AdamW on this rank's shares of `shards`, one multi-tensor update per group.
  void update_shares(const std::vector<const GradientShard*>& shards) {
    struct Lists {
      std::vector<at::Tensor> params, grads, m, v;
    };
    std::map<int, Lists> by_group;
    for (const GradientShard* shard : shards) {
      Moments& moments = moments_for(*shard);
      for (const Overlap& o : overlaps(*shard)) {
        const int g = group_of_[o.parameter];
        if (g < 0) continue;  // in no group (frozen): left as it is
        Lists& l = by_group[g];
        l.params.push_back(flat(o.parameter).narrow(0, o.parameter_from, o.numel));
        l.grads.push_back(shard->gradient.narrow(0, o.shard_from, o.numel));
        l.m.push_back(moments.m.narrow(0, o.shard_from, o.numel));
        l.v.push_back(moments.v.narrow(0, o.shard_from, o.numel));
      }
    }
    for (auto& [g, l] : by_group) {
      const Group& group = groups_[static_cast<size_t>(g)];
      adamw_update(std::move(l.params), std::move(l.grads), std::move(l.m), std::move(l.v), group.t, group.options);
    }
  }

  struct Gather {
    int first_stage = 0;  // the earliest forward stage of the unit's parameters
    at::Tensor mine, all;  // this rank's share of the unit's parameter buffer, and the buffer
    std::unique_ptr<PendingCollective> work;  // null until started
    bool done = false;
  };

  Gather prepare_gather(const GradientShard& shard) const {
    const auto it = buffers_.find(shard.unit);
    if (it == buffers_.end() || it->second.numel() != shard.unit_numel) {
      throw std::logic_error("zero1: unit " + std::to_string(shard.unit) + " is not laid out as the sync said");
    }
    Gather g{0, it->second.narrow(0, shard.shard_offset, shard.shard_numel), it->second, nullptr, false};
    if (!stage_of_.empty()) {
      g.first_stage = stage_of_[shard.pieces.front().parameter];
      for (const UnitPiece& piece : shard.pieces) g.first_stage = std::min(g.first_stage, stage_of_[piece.parameter]);
    }
    return g;
  }

  // In place: every rank's share lands in its slice of the buffer, this rank's is already there.
  void start(Gather& g) { g.work = comm_.all_gather(g.all, g.mine); }

  // Waits for the gather (started here if begin_forward did not run).
  void finish(Gather& g) {
    if (g.done) return;
    if (!g.work) start(g);
    g.work->wait();
    g.done = true;
  }

  std::vector<at::Tensor> parameters_;  // in the gradient sync's order
  Communicator& comm_;
  std::vector<int> group_of_;           // per parameter; -1: in no group
  std::unordered_map<const void*, size_t> index_of_;
  std::vector<Group> groups_;
  std::map<size_t, Moments> moments_;   // by unit
  std::map<size_t, at::Tensor> buffers_;  // by unit: its parameters, padded to the ranks
  std::vector<int> stage_of_;           // per parameter, when the gathers are deferred; else empty
  std::vector<Gather> pending_;         // prepared or started, not yet waited for
};

}  // namespace

std::unique_ptr<DistributedOptimizer> make_zero1_optimizer(const GradientSync& sync, Communicator& comm) {
  return std::make_unique<Zero1Optimizer>(sync, comm);
}

}  // namespace stepscope::distributed::detail
