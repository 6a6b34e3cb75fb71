// The CUDA kernels behind flash attention, called with LibTorch tensors on the current stream.
#pragma once

#include <ATen/core/Tensor.h>

#include "attention/flash_reference.h"

namespace stepscope {

FlashForwardResult flash_forward_gpu(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);
FlashGradients flash_backward_gpu(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& o,
                                  const at::Tensor& d_o, const at::Tensor& lse, bool causal);

}  // namespace stepscope
