// The SwiGLU kernels called with LibTorch tensors on the current stream (CUDA builds only).
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// Whether the kernels take ab (on a GPU, fp32/bf16/fp16) with `other` as dy's dtype (the
// forward passes ab's own); otherwise the reference runs.
bool swiglu_gpu_takes(const at::Tensor& ab, c10::ScalarType other);

// Shapes checked by the caller (swiglu.cpp); non-contiguous inputs are copied first.
at::Tensor swiglu_forward_gpu(const at::Tensor& ab);
at::Tensor swiglu_backward_gpu(const at::Tensor& dy, const at::Tensor& ab);

}  // namespace stepscope::fused
