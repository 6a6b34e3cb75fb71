#include "distributed/ddp/gradient_hooks.h"

namespace stepscope::distributed {

GradientHooks::GradientHooks(const std::vector<at::Tensor>& parameters, Callback on_ready)
    : parameters_(parameters), on_ready_(std::move(on_ready)) {
  handles_.reserve(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    // Returning nothing leaves the gradient autograd accumulates unchanged.
    handles_.push_back(parameters_[i].register_hook([this, i](const at::Tensor& grad) { on_ready_(i, grad); }));
  }
}

GradientHooks::~GradientHooks() {
  for (size_t i = 0; i < handles_.size(); ++i) parameters_[i].remove_hook(handles_[i]);
}

}  // namespace stepscope::distributed
