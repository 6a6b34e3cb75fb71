#include "model/fused/cuda/rms_norm_gpu.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include "kernels/element_type_of.h"
#include "kernels/cuda/fused/rms_norm_kernels.h"

namespace stepscope::fused {

namespace {

bool kernel_type(c10::ScalarType t) { return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf; }

at::Tensor contiguous_as(const at::Tensor& t, c10::ScalarType type) { return t.to(type).contiguous(); }

}  // namespace

bool rms_norm_gpu_takes(const at::Tensor& x, c10::ScalarType other) {
  return x.is_cuda() && kernel_type(x.scalar_type()) && kernel_type(other) && x.size(-1) <= kernels::kRmsNormMaxD;
}

RmsNormOutput rms_norm_forward_gpu(const at::Tensor& x_in, const at::Tensor& weight_in, double eps,
                                   c10::ScalarType out_dtype) {
  const c10::cuda::CUDAGuard guard(x_in.device());
  const auto x = x_in.contiguous();
  const auto weight = contiguous_as(weight_in, at::kFloat);  // no copy for the fp32 master
  const int64_t d = x.size(-1), rows = x.numel() / d;
  auto y = at::empty(x.sizes(), x.options().dtype(out_dtype));
  auto inv_rms = at::empty(x.sizes().slice(0, x.dim() - 1), x.options().dtype(at::kFloat));
  kernels::rms_norm_forward_cuda(x.data_ptr(), kernels::element_type_of(x.scalar_type()), weight.data_ptr<float>(), y.data_ptr(),
                                 kernels::element_type_of(out_dtype), inv_rms.data_ptr<float>(), rows, d, static_cast<float>(eps),
                                 c10::cuda::getCurrentCUDAStream().stream());
  return {y, inv_rms};
}

RmsNormGrads rms_norm_backward_gpu(const at::Tensor& dy_in, const at::Tensor& x_in, const at::Tensor& weight_in,
                                   const at::Tensor& inv_rms_in) {
  const c10::cuda::CUDAGuard guard(x_in.device());
  const auto x = x_in.contiguous();
  const auto dy = dy_in.contiguous();  // autograd may hand an expanded gradient
  const auto weight = contiguous_as(weight_in, at::kFloat);
  const auto inv_rms = contiguous_as(inv_rms_in, at::kFloat);
  const int64_t d = x.size(-1), rows = x.numel() / d;
  auto dx = at::empty_like(x);
  auto dweight = at::empty({d}, x.options().dtype(at::kFloat));
  // Partial dweight rows, one a block of the backward's grid (from the caching allocator, so a
  // captured CUDA graph replays with the same buffer).
  auto workspace = at::empty({kernels::rms_norm_backward_workspace_floats(rows, d)}, x.options().dtype(at::kFloat));
  kernels::rms_norm_backward_cuda(dy.data_ptr(), kernels::element_type_of(dy.scalar_type()), x.data_ptr(),
                                  kernels::element_type_of(x.scalar_type()), weight.data_ptr<float>(), inv_rms.data_ptr<float>(),
                                  dx.data_ptr(), dweight.data_ptr<float>(), workspace.data_ptr<float>(), rows, d,
                                  c10::cuda::getCurrentCUDAStream().stream());
  return {dx, dweight.to(weight_in.scalar_type())};
}

}  // namespace stepscope::fused
