// RMSNorm of the fused engine: the LibTorch reference, the dispatch to the CUDA kernels, and the
// autograd function. The reference computes in fp32 (fp64 for fp64 inputs, so finite
// differences can check it), the eager RMSNorm's order of operations: (x * inv_rms) * weight.
#include "model/fused/rms_norm.h"

#include <torch/torch.h>

#ifdef STEPSCOPE_WITH_CUDA
#include "model/fused/cuda/rms_norm_gpu.h"
#endif

namespace stepscope::fused {

namespace {

c10::ScalarType compute_type(const at::Tensor& t) { return at::promote_types(t.scalar_type(), at::kFloat); }

void check_inputs(const at::Tensor& x, const at::Tensor& weight) {
  TORCH_CHECK(x.dim() >= 1 && x.size(-1) >= 1, "rms_norm: x needs a last dimension of at least 1, got ", x.sizes());
  TORCH_CHECK(at::isFloatingType(x.scalar_type()), "rms_norm: x must be floating point, got ", x.scalar_type());
  TORCH_CHECK(weight.dim() == 1 && weight.size(0) == x.size(-1), "rms_norm: weight must be [", x.size(-1), "], got ",
              weight.sizes());
  TORCH_CHECK(weight.device() == x.device(), "rms_norm: x and weight must be on one device");
}

void check_backward_inputs(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& weight,
                           const at::Tensor& inv_rms) {
  check_inputs(x, weight);
  TORCH_CHECK(dy.sizes() == x.sizes(), "rms_norm: dy ", dy.sizes(), " must have x's shape ", x.sizes());
  TORCH_CHECK(inv_rms.numel() * x.size(-1) == x.numel(), "rms_norm: inv_rms must hold one value per row of x");
  TORCH_CHECK(dy.device() == x.device() && inv_rms.device() == x.device(),
              "rms_norm: dy, x and inv_rms must be on one device");
}

class RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            double eps, c10::ScalarType out_dtype) {
    auto out = rms_norm_forward(x, weight, eps, out_dtype);
    ctx->save_for_backward({x, weight, out.inv_rms});
    return out.y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    auto grads = rms_norm_backward(grad_outputs[0], saved[0], saved[1], saved[2]);
    return {grads.dx, grads.dweight, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

RmsNormOutput rms_norm_forward_reference(const at::Tensor& x, const at::Tensor& weight, double eps,
                                         c10::ScalarType out_dtype) {
  check_inputs(x, weight);
  const auto type = compute_type(x);
  const auto xc = x.to(type);
  const auto inv_rms = at::rsqrt(xc.pow(2).mean(-1) + eps);
  const auto y = (xc * inv_rms.unsqueeze(-1) * weight.to(type)).to(out_dtype);
  return {y, inv_rms};
}

RmsNormGrads rms_norm_backward_reference(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& weight,
                                         const at::Tensor& inv_rms) {
  check_backward_inputs(dy, x, weight, inv_rms);
  const auto type = compute_type(x);
  const int64_t d = x.size(-1);
  const auto inv = inv_rms.to(type).reshape(x.sizes().slice(0, x.dim() - 1)).unsqueeze(-1);
  const auto x_hat = x.to(type) * inv;
  const auto dy_c = dy.to(type);
  const auto g = dy_c * weight.to(type);
  const auto mean_dot = (g * x_hat).mean(-1, /*keepdim=*/true);
  const auto dx = (inv * (g - x_hat * mean_dot)).to(x.scalar_type());
  const auto dweight = (dy_c * x_hat).reshape({-1, d}).sum(0).to(weight.scalar_type());
  return {dx, dweight};
}

RmsNormOutput rms_norm_forward(const at::Tensor& x, const at::Tensor& weight, double eps, c10::ScalarType out_dtype) {
  check_inputs(x, weight);
#ifdef STEPSCOPE_WITH_CUDA
  if (rms_norm_gpu_takes(x, out_dtype)) return rms_norm_forward_gpu(x, weight, eps, out_dtype);
#endif
  return rms_norm_forward_reference(x, weight, eps, out_dtype);
}

RmsNormGrads rms_norm_backward(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& weight,
                               const at::Tensor& inv_rms) {
  check_backward_inputs(dy, x, weight, inv_rms);
#ifdef STEPSCOPE_WITH_CUDA
  if (rms_norm_gpu_takes(x, dy.scalar_type())) return rms_norm_backward_gpu(dy, x, weight, inv_rms);
#endif
  return rms_norm_backward_reference(dy, x, weight, inv_rms);
}

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps, c10::ScalarType out_dtype) {
  check_inputs(x, weight);
  return RmsNormFunction::apply(x, weight, eps, out_dtype);
}

}  // namespace stepscope::fused
