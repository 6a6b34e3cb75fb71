// overlap: each gradient's all-reduce starts from its hook while backward goes on; finish()
// waits for them all and installs the means (cast back into the gradients when they were
// reduced in another type).
#include <ATen/ATen.h>

#include <mutex>
#include <stdexcept>
#include <string>

#include "distributed/ddp/gradient_hooks.h"
#include "distributed/ddp/sync_variants.h"

namespace stepscope::distributed::detail {

namespace {

class OverlapSync final : public GradientSync {
 public:
  OverlapSync(std::vector<at::Tensor> parameters, Communicator& comm, const GradientSyncOptions& options)
      : GradientSync(std::move(parameters), comm, options),
        in_flight_(parameters_.size()),
        hooks_(parameters_, [this](size_t i, const at::Tensor& grad) { start(i, grad); }) {}
  DdpVariant variant() const override { return DdpVariant::overlap; }

 protected:
  void complete() override {
    // Everything started is waited for before any error, so no collective outlives the step.
    std::string missing;
    for (size_t i = 0; i < in_flight_.size(); ++i) {
      InFlight& f = in_flight_[i];
      if (!f.work) {
        if (missing.empty()) missing = std::to_string(i);
        continue;
      }
      timed([&] { f.work->wait(); });
    }
    if (!missing.empty()) {
      reset();
      throw std::runtime_error("overlap DDP: parameter " + missing + " received no gradient in this backward");
    }
    for (size_t i = 0; i < in_flight_.size() && !scatters(); ++i) {
      install_mean(i, in_flight_[i].sum);  // ours alone: no copy needed in the gradients' type
    }
    reset();
  }

  void reset() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& f : in_flight_) f = InFlight();
  }

 private:
  struct InFlight {
    at::Tensor sum;
    std::unique_ptr<PendingCollective> work;
  };

  void start(size_t i, const at::Tensor& grad) {
    if (!grad.defined()) return;  // no gradient: complete() names the parameter
    // A copy, divided on the way (one pass): autograd may steal or copy `grad` into .grad while
    // the collective writes it. The ranks' divided gradients then sum to the mean.
    const at::Scalar factor = mean_factor();
    const auto options = grad.options().dtype(reduce_type(grad));
    at::Tensor sum;
    if (scatters()) {  // ZeRO-1: padded to the ranks for the reduce-scatter
      sum = at::zeros({padded_numel(grad.numel(), comm_.size())}, options);
      at::Tensor head = sum.narrow(0, 0, grad.numel());
      scaled_into(head, grad.detach().reshape({-1}), factor);
    } else {
      sum = at::empty(grad.sizes(), options);  // contiguous, in the reduce type
      scaled_into(sum, grad.detach(), factor);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (in_flight_[i].work) {
      throw std::runtime_error("overlap DDP: parameter " + std::to_string(i) +
                               " got a second gradient before finish() (call begin_step() and finish() each step)");
    }
    in_flight_[i].work = start_reduction(sum, {{i, 0, grad.numel()}});
    in_flight_[i].sum = sum;
  }

  std::mutex mutex_;  // hooks of parameters on different devices run on different threads
  std::vector<InFlight> in_flight_;
  GradientHooks hooks_;  // last: removed before the state its callback uses
};

}  // namespace

std::unique_ptr<GradientSync> make_overlap_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                const GradientSyncOptions& options) {
  return std::make_unique<OverlapSync>(std::move(parameters), comm, options);
}

}  // namespace stepscope::distributed::detail
