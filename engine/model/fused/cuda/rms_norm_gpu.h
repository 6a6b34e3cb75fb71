// The RMSNorm kernels called with LibTorch tensors on the current stream (CUDA builds only).
#pragma once

#include <ATen/core/Tensor.h>

#include "model/fused/rms_norm.h"

namespace stepscope::fused {

// Whether the kernels take x (on a GPU, fp32/bf16/fp16, rows of at most kRmsNormMaxD) with
// `other` as the output's (forward) or dy's (backward) dtype; otherwise the reference runs.
bool rms_norm_gpu_takes(const at::Tensor& x, c10::ScalarType other);

// Shapes checked by the caller (rms_norm.cpp). Any strides and a weight of any float dtype are
// taken (copied to contiguous fp32 first where they are not).
RmsNormOutput rms_norm_forward_gpu(const at::Tensor& x, const at::Tensor& weight, double eps,
                                   c10::ScalarType out_dtype);
RmsNormGrads rms_norm_backward_gpu(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& weight,
                                   const at::Tensor& inv_rms);

}  // namespace stepscope::fused
