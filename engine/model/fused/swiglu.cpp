// SwiGLU of the fused engine: the LibTorch reference, the dispatch to the CUDA kernels, and the
// autograd function. The reference computes in fp32 (fp64 for fp64 inputs, so finite
// differences can check it) and rounds once, to ab's dtype.
#include "model/fused/swiglu.h"

#include <torch/torch.h>

#ifdef STEPSCOPE_WITH_CUDA
#include "model/fused/cuda/swiglu_gpu.h"
#endif

namespace stepscope::fused {

namespace {

c10::ScalarType compute_type(const at::Tensor& t) { return at::promote_types(t.scalar_type(), at::kFloat); }

void check_ab(const at::Tensor& ab) {
  TORCH_CHECK(ab.dim() >= 1 && ab.size(-1) >= 2 && ab.size(-1) % 2 == 0,
              "swiglu: ab's last dimension must be 2 * d_ff (d_ff >= 1), got ", ab.sizes());
  TORCH_CHECK(at::isFloatingType(ab.scalar_type()), "swiglu: ab must be floating point, got ", ab.scalar_type());
}

void check_backward_inputs(const at::Tensor& dy, const at::Tensor& ab) {
  check_ab(ab);
  auto expected = ab.sizes().vec();
  expected.back() /= 2;
  TORCH_CHECK(dy.sizes() == at::IntArrayRef(expected), "swiglu: dy must be ", at::IntArrayRef(expected), ", got ",
              dy.sizes());
  TORCH_CHECK(dy.device() == ab.device(), "swiglu: dy and ab must be on one device");
}

class SwigluFunction : public torch::autograd::Function<SwigluFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& ab) {
    ctx->save_for_backward({ab});
    return swiglu_forward(ab);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    return {swiglu_backward(grad_outputs[0], ctx->get_saved_variables()[0])};
  }
};

}  // namespace

at::Tensor swiglu_forward_reference(const at::Tensor& ab) {
  check_ab(ab);
  const int64_t d_ff = ab.size(-1) / 2;
  const auto a = ab.narrow(-1, 0, d_ff).to(compute_type(ab));
  const auto b = ab.narrow(-1, d_ff, d_ff).to(compute_type(ab));
  return (at::silu(a) * b).to(ab.scalar_type());
}

at::Tensor swiglu_backward_reference(const at::Tensor& dy, const at::Tensor& ab) {
  check_backward_inputs(dy, ab);
  const auto type = compute_type(ab);
  const int64_t d_ff = ab.size(-1) / 2;
  const auto a = ab.narrow(-1, 0, d_ff).to(type);
  const auto b = ab.narrow(-1, d_ff, d_ff).to(type);
  const auto g = dy.to(type);
  const auto s = at::sigmoid(a);
  const auto d_a = g * b * s * (1 + a * (1 - s));
  const auto d_b = g * (a * s);
  return at::cat({d_a, d_b}, -1).to(ab.scalar_type());
}

at::Tensor swiglu_forward(const at::Tensor& ab) {
  check_ab(ab);
#ifdef STEPSCOPE_WITH_CUDA
  if (swiglu_gpu_takes(ab, ab.scalar_type())) return swiglu_forward_gpu(ab);
#endif
  return swiglu_forward_reference(ab);
}

at::Tensor swiglu_backward(const at::Tensor& dy, const at::Tensor& ab) {
  check_backward_inputs(dy, ab);
#ifdef STEPSCOPE_WITH_CUDA
  if (swiglu_gpu_takes(ab, dy.scalar_type())) return swiglu_backward_gpu(dy, ab);
#endif
  return swiglu_backward_reference(dy, ab);
}

at::Tensor swiglu(const at::Tensor& ab) {
  check_ab(ab);
  return SwigluFunction::apply(ab);
}

}  // namespace stepscope::fused
