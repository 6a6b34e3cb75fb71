// "zero1", ZeRO stage 1: the gradient sync reduce-scatters every unit (parameter, flat buffer or
// bucket, padded to the ranks), so this rank holds the mean gradient of its even share of each.
// It keeps AdamW's moments for that share only, updates the parameter elements in it, and the
// units' shares are all-gathered back into every rank's parameters: with the reduce-scatter,
// the communication of one all-reduce, as plain DDP.
#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include <ATen/ATen.h>

#include "dist/sharding/sharding_variants.h"

namespace stepscope::dist::detail {

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
  Zero1Optimizer(std::vector<at::Tensor> all_parameters, Communicator& comm)
      : parameters_(std::move(all_parameters)), comm_(comm), group_of_(parameters_.size(), -1) {
    for (size_t i = 0; i < parameters_.size(); ++i) index_of_[parameters_[i].unsafeGetTensorImpl()] = i;
  }

  OptimizerSharding sharding() const override { return OptimizerSharding::zero1; }

  void step(const GradientSync& sync) override {
    if (sync.reduction() != GradientReduction::reduce_scatter) {
      throw std::logic_error("zero1 needs a gradient sync that reduce-scatters");
    }
    at::NoGradGuard no_grad;
    // Every group takes a step on every rank, so bias corrections agree across ranks.
    for (auto& group : groups_) ++group.t;
    // Unit by unit: update this rank's share, then start gathering the unit's updated
    // parameters, so each all-gather runs under the updates of the units after it.
    std::vector<Gather> gathers;
    gathers.reserve(sync.shards().size());
    for (const GradientShard& shard : sync.shards()) {
      update_share(shard);
      gathers.push_back(start_gather(shard));
    }
    finish_gathers(gathers);
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

  Moments& moments_for(const GradientShard& shard) {
    auto it = moments_.find(shard.unit);
    if (it == moments_.end()) {
      const auto options = shard.gradient.options();
      it = moments_.emplace(shard.unit, Moments{at::zeros({shard.shard_numel}, options),
                                                at::zeros({shard.shard_numel}, options)}).first;
    }
    return it->second;
  }

  // AdamW on this rank's share of one unit, group by group.
  void update_share(const GradientShard& shard) {
    struct Lists {
      std::vector<at::Tensor> params, grads, m, v;
    };
    std::map<int, Lists> by_group;
    Moments& moments = moments_for(shard);
    for (const Overlap& o : overlaps(shard)) {
      const int g = group_of_[o.parameter];
      if (g < 0) continue;  // in no group (frozen): left as it is
      Lists& l = by_group[g];
      l.params.push_back(flat(o.parameter).narrow(0, o.parameter_from, o.numel));
      l.grads.push_back(shard.gradient.narrow(0, o.shard_from, o.numel));
      l.m.push_back(moments.m.narrow(0, o.shard_from, o.numel));
      l.v.push_back(moments.v.narrow(0, o.shard_from, o.numel));
    }
    for (auto& [g, l] : by_group) {
      const Group& group = groups_[static_cast<size_t>(g)];
      adamw_update(std::move(l.params), std::move(l.grads), std::move(l.m), std::move(l.v), group.t, group.options);
    }
  }

  struct Gather {
    const GradientShard* shard;
    at::Tensor mine, all;
    std::unique_ptr<PendingCollective> work;
  };

  // Starts gathering every rank's updated share of the unit: into the unit's gradient buffer
  // when it has one (its gradients are used up by now), else into a buffer of its own.
  Gather start_gather(const GradientShard& shard) {
    Gather g{&shard, at::zeros({shard.shard_numel}, shard.gradient.options()),
             shard.unit_buffer.defined() ? shard.unit_buffer : at::empty({shard.unit_numel}, shard.gradient.options()),
             nullptr};
    for (const Overlap& o : overlaps(shard)) {
      g.mine.narrow(0, o.shard_from, o.numel).copy_(flat(o.parameter).narrow(0, o.parameter_from, o.numel));
    }
    g.work = comm_.all_gather(g.all, g.mine);
    return g;
  }

  // Waits for the gathers and copies every unit's parameters out of them.
  void finish_gathers(std::vector<Gather>& gathers) {
    for (auto& g : gathers) {
      g.work->wait();
      for (const UnitPiece& piece : g.shard->pieces) {
        flat(piece.parameter).copy_(g.all.narrow(0, piece.unit_offset, piece.numel));
      }
    }
  }

  std::vector<at::Tensor> parameters_;  // in the gradient sync's order
  Communicator& comm_;
  std::vector<int> group_of_;           // per parameter; -1: in no group
  std::unordered_map<const void*, size_t> index_of_;
  std::vector<Group> groups_;
  std::map<size_t, Moments> moments_;   // by unit
};

}  // namespace

std::unique_ptr<DistributedOptimizer> make_zero1_optimizer(std::vector<at::Tensor> all_parameters, Communicator& comm) {
  return std::make_unique<Zero1Optimizer>(std::move(all_parameters), comm);
}

}  // namespace stepscope::dist::detail
