// naive: after backward, one blocking all-reduce per gradient, in registration order.
// In another reduce type: each gradient cast and divided into a buffer of that type, reduced
// there and cast back into the gradient.
#include <ATen/ATen.h>

#include "distributed/ddp/sync_variants.h"

namespace stepscope::distributed::detail {

namespace {

class NaiveSync final : public GradientSync {
 public:
  NaiveSync(std::vector<at::Tensor> parameters, Communicator& comm, const GradientSyncOptions& options)
      : GradientSync(std::move(parameters), comm, options) {}
  DdpVariant variant() const override { return DdpVariant::naive; }

 protected:
  void complete() override {
    if (scatters()) return scatter_each();
    for (size_t i = 0; i < parameters_.size(); ++i) {
      at::Tensor grad = gradient(i);
      if (compresses(grad)) {
        reduce_compressed(i);
        continue;
      }
      // Collectives need dense memory; autograd's layout contract usually gives it already.
      if (!grad.is_contiguous()) {
        grad = grad.contiguous();
        parameters_[i].mutable_grad() = grad;
      }
      auto work = start_all_reduce(grad);
      timed([&] { work->wait(); });
      if (!averages_in_collective()) grad.div_(comm_.size());
    }
  }

 private:
  void reduce_compressed(size_t i) {
    const at::Tensor grad = parameters_[i].grad();
    at::Tensor wire = at::empty(grad.sizes(), grad.options().dtype(reduce_type(grad)));
    scaled_into(wire, grad, mean_factor());
    auto work = start_all_reduce(wire);
    timed([&] { work->wait(); });
    install_mean(i, wire);
  }

  // ZeRO-1: each gradient, divided and padded, reduce-scattered on its own.
  void scatter_each() {
    for (size_t i = 0; i < parameters_.size(); ++i) {
      const at::Tensor& grad = gradient(i);
      at::Tensor unit = at::zeros({padded_numel(grad.numel(), comm_.size())}, grad.options().dtype(reduce_type(grad)));
      at::Tensor head = unit.narrow(0, 0, grad.numel());
      scaled_into(head, grad.reshape({-1}), mean_factor());
      auto work = start_reduction(unit, {{i, 0, grad.numel()}});
      timed([&] { work->wait(); });
    }
  }
};

}  // namespace

std::unique_ptr<GradientSync> make_naive_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                              const GradientSyncOptions& options) {
  return std::make_unique<NaiveSync>(std::move(parameters), comm, options);
}

}  // namespace stepscope::distributed::detail
