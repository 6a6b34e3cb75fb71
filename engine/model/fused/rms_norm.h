// RMSNorm as one kernel each way: y = x * rsqrt(mean(x^2) + eps) * weight, statistics in fp32,
// y written straight in the compute type (bf16/fp16 under mixed precision), so the matmul after
// it casts nothing. CUDA tensors run the kernels, CPU tensors the LibTorch reference.
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

struct RmsNormOutput {
  at::Tensor y;        // x's shape, out_dtype
  at::Tensor inv_rms;  // fp32, one per row (x's leading dims), kept for the backward
};
struct RmsNormGrads {
  at::Tensor dx;       // x's shape and dtype
  at::Tensor dweight;  // weight's shape and dtype (fp32 master)
};

// x: [..., d] (fp32, bf16 or fp16), weight: [d] fp32. Differentiable in x and weight.
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps, c10::ScalarType out_dtype);

// The passes on their own (kernels on a GPU, reference on the CPU), for tests and benchmarks.
RmsNormOutput rms_norm_forward(const at::Tensor& x, const at::Tensor& weight, double eps, c10::ScalarType out_dtype);
RmsNormGrads rms_norm_backward(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& weight,
                               const at::Tensor& inv_rms);
// The LibTorch references the kernels are tested against (any device).
RmsNormOutput rms_norm_forward_reference(const at::Tensor& x, const at::Tensor& weight, double eps,
                                         c10::ScalarType out_dtype);
RmsNormGrads rms_norm_backward_reference(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& weight,
                                         const at::Tensor& inv_rms);

}  // namespace stepscope::fused
