// bucketed: gradients copied into their bucket's flat buffer as backward produces them; a
// bucket's all-reduce starts once all its gradients arrived; finish() waits and copies back.
// In another reduce type the buckets are of that type (cast and divided on the way in) and the
// means are cast back into the gradients; else the gradients become views of the buckets.
#include <ATen/ATen.h>

#include <mutex>
#include <stdexcept>
#include <string>

#include "distributed/ddp/bucket_arrivals.h"
#include "distributed/ddp/bucket_plan.h"
#include "distributed/ddp/gradient_hooks.h"
#include "distributed/ddp/sync_variants.h"

namespace stepscope::distributed::detail {

namespace {

struct Place {
  size_t bucket = 0;
  int64_t offset = 0;  // elements into the bucket's buffer
};

class BucketedSync final : public GradientSync {
 public:
  BucketedSync(std::vector<at::Tensor> parameters, Communicator& comm, const GradientSyncOptions& options)
      : GradientSync(std::move(parameters), comm, options),
        buckets_(make_buckets(parameters_, options.bucket_bytes, scatters() ? comm.size() : 1,
                              parameters_.empty() ? at::kFloat : reduce_type(parameters_[0]))),
        places_(places_of(buckets_, parameters_.size())),
        arrivals_(bucket_of(places_)),
        hooks_(parameters_, [this](size_t i, const at::Tensor& grad) { arrive(i, grad); }) {}
  DdpVariant variant() const override { return DdpVariant::bucketed; }
  std::vector<at::Tensor> buffers() const override {
    std::vector<at::Tensor> out;
    for (const auto& b : buckets_) out.push_back(b.buffer);
    return out;
  }
  std::vector<GradientUnit> units() const override {
    std::vector<GradientUnit> out;
    for (const auto& b : buckets_) out.push_back({pieces(b.plan), b.buffer.numel()});
    return out;
  }

 protected:
  void complete() override {
    for (auto& b : buckets_) {
      if (b.work) timed([&] { b.work->wait(); });
    }
    if (const size_t i = arrivals_.first_missing(); i < parameters_.size()) {
      reset();
      throw std::runtime_error("bucketed DDP: parameter " + std::to_string(i) + " received no gradient in this backward");
    }
    // The buckets hold the means (each gradient was divided on its way in): the gradients become
    // views of them, as PyTorch's gradient_as_bucket_view, with no pass over the memory after
    // the last wait. The optimizer only reads them; the next step's gradients are new tensors.
    // Reduced in another type, the means are cast back into autograd's gradients instead.
    for (auto& b : buckets_) {
      for (size_t k = 0; k < b.plan.parameters.size() && !scatters(); ++k) {
        const size_t i = b.plan.parameters[k];
        install_mean(i, b.buffer.narrow(0, b.plan.offsets[k], parameters_[i].numel()).view(parameters_[i].sizes()));
      }
    }
    reset();
  }

  void reset() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& b : buckets_) b.work.reset();
    arrivals_.reset();
  }

 private:
  struct BucketState {
    Bucket plan;
    at::Tensor buffer;  // kept across steps
    std::unique_ptr<PendingCollective> work;
  };

  static std::vector<Place> places_of(const std::vector<BucketState>& buckets, size_t parameters) {
    std::vector<Place> places(parameters);
    for (size_t b = 0; b < buckets.size(); ++b) {
      const Bucket& plan = buckets[b].plan;
      for (size_t k = 0; k < plan.parameters.size(); ++k) places[plan.parameters[k]] = Place{b, plan.offsets[k]};
    }
    return places;
  }
  static std::vector<size_t> bucket_of(const std::vector<Place>& places) {
    std::vector<size_t> out;
    for (const Place& p : places) out.push_back(p.bucket);
    return out;
  }

  // Buffers of `type`, padded to a multiple of `ranks` (ZeRO-1's reduce-scatter); the tail
  // stays zero. Planned by the parameters' own bytes, as PyTorch's bucket_cap_mb.
  static std::vector<BucketState> make_buckets(const std::vector<at::Tensor>& parameters, int64_t bucket_bytes,
                                               int ranks, at::ScalarType type) {
    std::vector<ParameterSize> sizes;
    for (size_t i = 0; i < parameters.size(); ++i) {
      sizes.push_back({i, parameters[i].numel(), static_cast<int64_t>(parameters[i].element_size())});
    }
    std::vector<BucketState> buckets;
    for (Bucket& plan : plan_buckets(sizes, bucket_bytes)) {
      BucketState state;
      state.buffer = at::zeros({padded_numel(plan.numel, ranks)}, parameters[0].options().dtype(type).requires_grad(false));
      state.plan = std::move(plan);
      buckets.push_back(std::move(state));
    }
    return buckets;
  }

  std::vector<UnitPiece> pieces(const Bucket& plan) const {
    std::vector<UnitPiece> out;
    for (size_t k = 0; k < plan.parameters.size(); ++k) {
      out.push_back({plan.parameters[k], plan.offsets[k], parameters_[plan.parameters[k]].numel()});
    }
    return out;
  }

  void arrive(size_t i, const at::Tensor& grad) {
    if (!grad.defined()) return;  // no gradient: complete() names the parameter
    std::lock_guard<std::mutex> lock(mutex_);
    const std::vector<size_t> ready = arrivals_.arrive(i);
    BucketState& b = buckets_[places_[i].bucket];
    at::Tensor slot = b.buffer.narrow(0, places_[i].offset, grad.numel()).view(grad.sizes());
    scaled_into(slot, grad, mean_factor());  // copied (and divided) during backward
    for (size_t r : ready) {
      buckets_[r].work = start_reduction(buckets_[r].buffer, pieces(buckets_[r].plan), ShardStorage::in_buffer);
    }
  }

  std::mutex mutex_;  // hooks of parameters on different devices run on different threads
  std::vector<BucketState> buckets_;
  std::vector<Place> places_;
  BucketArrivals arrivals_;
  GradientHooks hooks_;  // last: removed before the state its callback uses
};

}  // namespace

std::unique_ptr<GradientSync> make_bucketed_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                 const GradientSyncOptions& options) {
  return std::make_unique<BucketedSync>(std::move(parameters), comm, options);
}

}  // namespace stepscope::distributed::detail
