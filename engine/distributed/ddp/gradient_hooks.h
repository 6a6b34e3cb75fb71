// A callback per parameter that runs as soon as backward has its gradient, for the variants
// that start communication during backward.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

namespace stepscope::distributed {

class GradientHooks {
 public:
  // on_ready(i, grad): parameter i's gradient of this backward, all its uses summed, before
  // autograd accumulates it into .grad (a tensor hook on the leaf, which LibTorch 1.13 and 2.x
  // both run there). It runs on the thread autograd runs the parameter's device on.
  using Callback = std::function<void(size_t index, const at::Tensor& grad)>;
  GradientHooks(const std::vector<at::Tensor>& parameters, Callback on_ready);
  // Removes the hooks: the callback's captures may not outlive its owner.
  ~GradientHooks();
  GradientHooks(const GradientHooks&) = delete;
  GradientHooks& operator=(const GradientHooks&) = delete;

 private:
  std::vector<at::Tensor> parameters_;
  std::vector<unsigned> handles_;
  Callback on_ready_;
};

}  // namespace stepscope::distributed
