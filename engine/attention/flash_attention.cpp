#include "attention/flash_attention.h"

#include <torch/torch.h>

#include "kernels/flash_attention_args.h"
#include "core/config_error.h"
#ifdef STEPSCOPE_WITH_CUDA
#include "attention/cuda/flash_attention_gpu.h"
#endif

namespace stepscope {

namespace {

std::string shape_text(const at::Tensor& t) {
  std::string text = "(";
  for (int64_t i = 0; i < t.dim(); ++i) text += (i ? ", " : "") + std::to_string(t.size(i));
  return text + ")";
}

// The forward on inputs check_flash_inputs has passed.
FlashForwardResult forward_checked(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  if (q.is_cuda()) {
#ifdef STEPSCOPE_WITH_CUDA
    return flash_forward_gpu(q, k, v, causal);
#endif
  }
  return flash_reference_forward(q, k, v, causal);
}

class FlashAttentionFunction : public torch::autograd::Function<FlashAttentionFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                            const at::Tensor& v, bool causal) {
    auto result = forward_checked(q, k, v, causal);
    ctx->save_for_backward({q, k, v, result.o, result.lse});
    ctx->saved_data["causal"] = causal;
    return result.o;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const bool causal = ctx->saved_data["causal"].toBool();
    auto grads = flash_backward(saved[0], saved[1], saved[2], saved[3], grad_outputs[0], saved[4], causal);
    return {grads.dq, grads.dk, grads.dv, at::Tensor()};
  }
};

}  // namespace

void check_flash_inputs(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const auto refuse = [&](const std::string& why) {
    throw ConfigError("flash attention cannot take q " + shape_text(q) + ", k " + shape_text(k) + ", v " +
                          shape_text(v) + ": " + why,
                      "d");
  };
  if (q.dim() != 3 && q.dim() != 4) refuse("inputs are (batch, seq, d) or (batch, heads, seq, d)");
  if (k.dim() != q.dim() || v.dim() != q.dim()) refuse("q, k and v must have the same number of dimensions");
  if (k.sizes() != v.sizes()) refuse("k and v must have the same shape");
  for (int64_t i = 0; i + 2 < q.dim(); ++i) {
    if (q.size(i) != k.size(i)) refuse("q and k must agree in batch and heads");
  }
  if (q.size(-1) != k.size(-1)) refuse("q and k must have the same head dim");
  if (q.size(-2) < 1 || k.size(-2) < 1 || q.size(-1) < 1) refuse("sizes must be at least 1");
  if (q.scalar_type() != k.scalar_type() || q.scalar_type() != v.scalar_type()) refuse("q, k and v must share a type");
  const auto type = q.scalar_type();
  if (type != torch::kFloat32 && type != torch::kFloat16 && type != torch::kBFloat16 && type != torch::kFloat64) {
    refuse("the type must be float32, float16 or bfloat16");
  }
  if (q.device() != k.device() || q.device() != v.device()) refuse("q, k and v must be on one device");
  if (q.is_cuda()) {
    if (type == torch::kFloat64) refuse("the CUDA kernels take float32, float16 or bfloat16, not float64");
    kernels::AttentionShape shape;
    shape.batch = q.size(0);
    shape.heads = q.dim() == 4 ? q.size(1) : 1;
    shape.seq_q = q.size(-2);
    shape.seq_k = k.size(-2);
    shape.head_dim = q.size(-1);
    const std::string problem = kernels::flash_shape_problem(shape);
    if (!problem.empty()) refuse(problem);
  }
}

FlashForwardResult flash_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  check_flash_inputs(q, k, v);
  return forward_checked(q, k, v, causal);
}

FlashGradients flash_backward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& o,
                              const at::Tensor& d_o, const at::Tensor& lse, bool causal) {
  if (q.is_cuda()) {
#ifdef STEPSCOPE_WITH_CUDA
    return flash_backward_gpu(q, k, v, o, d_o, lse, causal);
#endif
  }
  return flash_reference_backward(q, k, v, o, d_o, lse, causal);
}

at::Tensor flash_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  check_flash_inputs(q, k, v);
  return FlashAttentionFunction::apply(q, k, v, causal);
}

}  // namespace stepscope
