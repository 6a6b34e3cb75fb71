// SwiGLU's gate as one kernel each way: from ab = x [W1; W3]^T (one matmul, a = first half of
// the last dim, b = second half), y = silu(a) * b, computed in fp32 and stored in ab's dtype.
// CUDA tensors run the kernels, CPU tensors the LibTorch reference.
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// ab: [..., 2 * d_ff] contiguous -> y [..., d_ff]. Differentiable in ab.
at::Tensor swiglu(const at::Tensor& ab);

at::Tensor swiglu_forward(const at::Tensor& ab);
// dy [..., d_ff] -> d_ab [..., 2 * d_ff] in ab's dtype.
at::Tensor swiglu_backward(const at::Tensor& dy, const at::Tensor& ab);
at::Tensor swiglu_forward_reference(const at::Tensor& ab);
at::Tensor swiglu_backward_reference(const at::Tensor& dy, const at::Tensor& ab);

}  // namespace stepscope::fused
