// flat: after backward, every gradient copied into one buffer, one all-reduce, copied back.
// In another reduce type the buffer is of that type and the means are cast back into the
// gradients; else the gradients become views of it.
#include <ATen/ATen.h>

#include "distributed/ddp/sync_variants.h"

namespace stepscope::distributed::detail {

namespace {

class FlatSync final : public GradientSync {
 public:
  FlatSync(std::vector<at::Tensor> parameters, Communicator& comm, const GradientSyncOptions& options)
      : GradientSync(std::move(parameters), comm, options) {
    int64_t total = 0;
    for (const auto& p : parameters_) total += p.numel();
    // Kept across steps: the allocation is not what the experiment measures.
    // ZeRO-1 pads it to a multiple of the ranks; the tail stays zero.
    if (!parameters_.empty()) {
      buffer_ = at::zeros({scatters() ? padded_numel(total, comm_.size()) : total},
                          parameters_[0].options().dtype(reduce_type(parameters_[0])).requires_grad(false));
    }
  }
  DdpVariant variant() const override { return DdpVariant::flat; }
  std::vector<at::Tensor> buffers() const override { return {buffer_}; }
  std::vector<GradientUnit> units() const override {
    if (parameters_.empty()) return {};
    return {{pieces(), buffer_.numel()}};
  }

 protected:
  void complete() override {
    if (parameters_.empty()) return;
    // Each gradient copied in and divided in one pass; afterwards the gradients are views of
    // the buffer (the optimizer only reads them), so nothing is copied back.
    const at::Scalar factor = mean_factor();
    int64_t offset = 0;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      const at::Tensor& grad = gradient(i);
      at::Tensor slot = buffer_.narrow(0, offset, grad.numel()).view(grad.sizes());
      scaled_into(slot, grad, factor);
      offset += grad.numel();
    }
    auto work = start_reduction(buffer_, pieces(), ShardStorage::in_buffer);
    timed([&] { work->wait(); });
    if (scatters()) return;  // the optimizer reads this rank's shard
    offset = 0;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      const at::Tensor& p = parameters_[i];
      install_mean(i, buffer_.narrow(0, offset, p.numel()).view(p.sizes()));
      offset += p.numel();
    }
  }

 private:
  // Every parameter, one after another.
  std::vector<UnitPiece> pieces() const {
    std::vector<UnitPiece> out;
    int64_t offset = 0;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      out.push_back({i, offset, parameters_[i].numel()});
      offset += parameters_[i].numel();
    }
    return out;
  }

  at::Tensor buffer_;
};

}  // namespace

std::unique_ptr<GradientSync> make_flat_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                             const GradientSyncOptions& options) {
  return std::make_unique<FlatSync>(std::move(parameters), comm, options);
}

}  // namespace stepscope::distributed::detail
