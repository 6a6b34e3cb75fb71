#include "model/fused/cuda/swiglu_gpu.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include "kernels/element_type_of.h"
#include "kernels/cuda/fused/swiglu_kernels.h"

namespace stepscope::fused {

namespace {

bool kernel_type(c10::ScalarType t) { return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf; }

}  // namespace

bool swiglu_gpu_takes(const at::Tensor& ab, c10::ScalarType other) {
  return ab.is_cuda() && kernel_type(ab.scalar_type()) && kernel_type(other);
}

at::Tensor swiglu_forward_gpu(const at::Tensor& ab_in) {
  const c10::cuda::CUDAGuard guard(ab_in.device());
  const auto ab = ab_in.contiguous();
  const int64_t d_ff = ab.size(-1) / 2, rows = ab.numel() / ab.size(-1);
  auto sizes = ab.sizes().vec();
  sizes.back() = d_ff;
  auto y = at::empty(sizes, ab.options());
  kernels::swiglu_forward_cuda(ab.data_ptr(), y.data_ptr(), kernels::element_type_of(ab.scalar_type()), rows, d_ff,
                               c10::cuda::getCurrentCUDAStream().stream());
  return y;
}

at::Tensor swiglu_backward_gpu(const at::Tensor& dy_in, const at::Tensor& ab_in) {
  const c10::cuda::CUDAGuard guard(ab_in.device());
  const auto ab = ab_in.contiguous();
  const auto dy = dy_in.contiguous();  // autograd may hand an expanded gradient
  const int64_t d_ff = ab.size(-1) / 2, rows = ab.numel() / ab.size(-1);
  auto d_ab = at::empty_like(ab);
  kernels::swiglu_backward_cuda(dy.data_ptr(), kernels::element_type_of(dy.scalar_type()), ab.data_ptr(), d_ab.data_ptr(),
                                kernels::element_type_of(ab.scalar_type()), rows, d_ff, c10::cuda::getCurrentCUDAStream().stream());
  return d_ab;
}

}  // namespace stepscope::fused
