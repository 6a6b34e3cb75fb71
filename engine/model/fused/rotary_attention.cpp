#include "model/fused/rotary_attention.h"

#include <torch/torch.h>

#include "attention/flash_attention.h"
#include "attention/naive_attention.h"
#include "core/config_error.h"
#ifdef STEPSCOPE_WITH_CUDA
#include "model/fused/cuda/rope_qkv_gpu.h"
#endif

namespace stepscope::fused {

namespace {

struct QkvLayout {
  int64_t batch, seq, heads, d_head;
  int64_t d_model() const { return heads * d_head; }
};

void check_tables(const at::Tensor& cos, const at::Tensor& sin, int64_t seq, int64_t d_head, const at::Device& device) {
  TORCH_CHECK(cos.dim() == 2 && sin.sizes() == cos.sizes(), "rope: cos and sin are [positions, d_head / 2] tables, not ",
              cos.sizes(), " and ", sin.sizes());
  TORCH_CHECK(cos.size(1) == d_head / 2, "rope: tables of ", cos.size(1), " columns for heads of ", d_head,
              " (they need d_head / 2)");
  TORCH_CHECK(cos.size(0) >= seq, "sequence of ", seq, " tokens is longer than the rope tables' ", cos.size(0),
              " positions (the model's context)");
  TORCH_CHECK(cos.scalar_type() == at::kFloat && sin.scalar_type() == at::kFloat, "rope: the tables are fp32, not ",
              cos.scalar_type(), " and ", sin.scalar_type());
  TORCH_CHECK(cos.device() == device && sin.device() == device, "rope: the tables are on ", cos.device(), " and ",
              sin.device(), ", the activations on ", device);
}

QkvLayout check_qkv(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin, int64_t num_heads) {
  TORCH_CHECK(qkv.dim() == 3, "rope: qkv is [batch, seq, 3 * d_model], not ", qkv.sizes());
  TORCH_CHECK(num_heads >= 1, "rope: ", num_heads, " heads");
  TORCH_CHECK(qkv.size(2) % (3 * num_heads) == 0, "rope: rows of ", qkv.size(2), " do not split into q, k and v of ",
              num_heads, " heads each");
  const int64_t d_head = qkv.size(2) / 3 / num_heads;
  TORCH_CHECK(d_head >= 2 && d_head % 2 == 0, "rope: heads of ", d_head, " dimensions (rotary pairs need an even number)");
  check_tables(cos, sin, qkv.size(1), d_head, qkv.device());
  return {qkv.size(0), qkv.size(1), num_heads, d_head};
}

void check_grads(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv, const at::Tensor& cos,
                 const at::Tensor& sin) {
  TORCH_CHECK(dq.dim() == 4, "rope backward: gradients are [batch, heads, seq, d_head], not ", dq.sizes());
  TORCH_CHECK(dk.sizes() == dq.sizes() && dv.sizes() == dq.sizes(), "rope backward: dq ", dq.sizes(), ", dk ",
              dk.sizes(), " and dv ", dv.sizes(), " differ");
  TORCH_CHECK(dk.scalar_type() == dq.scalar_type() && dv.scalar_type() == dq.scalar_type(),
              "rope backward: dq, dk and dv must share a type");
  TORCH_CHECK(dk.device() == dq.device() && dv.device() == dq.device(), "rope backward: dq, dk and dv on one device");
  TORCH_CHECK(dq.size(3) >= 2 && dq.size(3) % 2 == 0, "rope backward: heads of ", dq.size(3),
              " dimensions (rotary pairs need an even number)");
  check_tables(cos, sin, dq.size(2), dq.size(3), dq.device());
}

// The kernels' types; anything else (fp64) runs the reference.
bool kernels_take(const at::Tensor& t) {
  const auto type = t.scalar_type();
  return t.is_cuda() && (type == at::kFloat || type == at::kHalf || type == at::kBFloat16);
}

// The reference model's rotation of x [..., d_head] by tables broadcastable to [..., d_head / 2]:
// in fp32 (the tables promote x), rounded back to x's type once.
at::Tensor rotate_pairs(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const auto even = x.slice(-1, 0, c10::nullopt, 2);
  const auto odd = x.slice(-1, 1, c10::nullopt, 2);
  return torch::stack({cos * even - sin * odd, sin * even + cos * odd}, -1).flatten(-2).to(x.scalar_type());
}

// Its transpose (the backward): d_even = cos g_even + sin g_odd, d_odd = cos g_odd - sin g_even.
at::Tensor rotate_pairs_back(const at::Tensor& g, const at::Tensor& cos, const at::Tensor& sin) {
  const auto even = g.slice(-1, 0, c10::nullopt, 2);
  const auto odd = g.slice(-1, 1, c10::nullopt, 2);
  return torch::stack({cos * even + sin * odd, cos * odd - sin * even}, -1).flatten(-2).to(g.scalar_type());
}

struct HeadViews {
  at::Tensor q, k, v;
};

// q, k and v as (batch, heads, seq, d_head) views of one [batch, seq, 3 * d_model] tensor, no copies.
HeadViews head_views(const at::Tensor& qkv, const QkvLayout& l) {
  const auto x = qkv.view({l.batch, l.seq, 3, l.heads, l.d_head});
  const auto heads_first = [&](int64_t i) { return x.select(2, i).permute({0, 2, 1, 3}); };
  return {heads_first(0), heads_first(1), heads_first(2)};
}

// (batch, heads, seq, d_head) -> [batch, seq, d_model]: a view of flash's O on the GPU, which it
// writes in (batch, seq, heads, d_head) memory order; a copy of the CPU reference's.
at::Tensor merge_heads(const at::Tensor& o, const QkvLayout& l) {
  return o.transpose(1, 2).reshape({l.batch, l.seq, l.d_model()});
}

// Whether flash attention takes the q, k, v views of this qkv. Zero-stride views of qkv stand in
// for them (check_flash_inputs reads shapes, type and device only), so nothing is copied.
bool flash_takes(const at::Tensor& qkv, const QkvLayout& l) {
  const auto stand_in = qkv.detach().as_strided({l.batch, l.heads, l.seq, l.d_head}, {0, 0, 0, 1});
  try {
    check_flash_inputs(stand_in, stand_in, stand_in);
    return true;
  } catch (const ConfigError&) {
    return false;
  }
}

QkvLayout layout_of(const at::Tensor& qkv, int64_t num_heads) {
  return {qkv.size(0), qkv.size(1), num_heads, qkv.size(2) / 3 / num_heads};
}

// RoPE, then FlashAttention on strided views of the rotated tensor. Saves the rotated qkv, O
// and the logsumexp (besides the tables), never the score matrix nor the unrotated qkv.
class RotaryAttentionFunction : public torch::autograd::Function<RotaryAttentionFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& qkv, const at::Tensor& cos,
                            const at::Tensor& sin, int64_t num_heads) {
    const QkvLayout l = layout_of(qkv, num_heads);
    const auto rotated = rope_qkv_forward(qkv, cos, sin, num_heads);
    const HeadViews views = head_views(rotated, l);
    auto result = flash_forward(views.q, views.k, views.v, /*causal=*/true);
    ctx->save_for_backward({rotated, result.o, result.lse, cos, sin});
    ctx->saved_data["num_heads"] = num_heads;
    return merge_heads(result.o, l);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &rotated = saved[0], &o = saved[1], &lse = saved[2], &cos = saved[3], &sin = saved[4];
    const QkvLayout l = layout_of(rotated, ctx->saved_data["num_heads"].toInt());
    const HeadViews views = head_views(rotated, l);
    // dO in O's (batch, heads, seq, d_head) shape; a view of a contiguous gradient.
    const auto d_o = grad_outputs[0].reshape({l.batch, l.seq, l.heads, l.d_head}).transpose(1, 2);
    const FlashGradients grads = flash_backward(views.q, views.k, views.v, o, d_o, lse, /*causal=*/true);
    return {rope_qkv_backward(grads.dq, grads.dk, grads.dv, cos, sin), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor rope_qkv_forward_reference(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                      int64_t num_heads) {
  const QkvLayout l = check_qkv(qkv, cos, sin, num_heads);
  const auto x = qkv.reshape({l.batch, l.seq, 3, l.heads, l.d_head});
  // Tables [seq, 1, 1, d_head / 2] against pairs [batch, seq, 2 (q, k), heads, d_head / 2].
  const auto table = [&](const at::Tensor& t) { return t.narrow(0, 0, l.seq).view({l.seq, 1, 1, l.d_head / 2}); };
  const auto rotated = rotate_pairs(x.narrow(2, 0, 2), table(cos), table(sin));
  return torch::cat({rotated, x.narrow(2, 2, 1)}, 2).view({l.batch, l.seq, 3 * l.d_model()});
}

at::Tensor rope_qkv_backward_reference(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv,
                                       const at::Tensor& cos, const at::Tensor& sin) {
  check_grads(dq, dk, dv, cos, sin);
  const int64_t batch = dq.size(0), heads = dq.size(1), seq = dq.size(2), d_head = dq.size(3);
  // Tables [seq, d_head / 2] against pairs [batch, heads, seq, d_head / 2].
  const auto c = cos.narrow(0, 0, seq), s = sin.narrow(0, 0, seq);
  const auto seq_first = [](const at::Tensor& g) { return g.transpose(1, 2); };
  return torch::stack({seq_first(rotate_pairs_back(dq, c, s)), seq_first(rotate_pairs_back(dk, c, s)), seq_first(dv)},
                      2)
      .view({batch, seq, 3 * heads * d_head});
}

at::Tensor rope_qkv_forward(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin, int64_t num_heads) {
  check_qkv(qkv, cos, sin, num_heads);
  if (kernels_take(qkv)) {
#ifdef STEPSCOPE_WITH_CUDA
    return rope_qkv_forward_gpu(qkv, cos, sin, num_heads);
#endif
  }
  return rope_qkv_forward_reference(qkv, cos, sin, num_heads);
}

at::Tensor rope_qkv_backward(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv, const at::Tensor& cos,
                             const at::Tensor& sin) {
  check_grads(dq, dk, dv, cos, sin);
  if (kernels_take(dq)) {
#ifdef STEPSCOPE_WITH_CUDA
    return rope_qkv_backward_gpu(dq, dk, dv, cos, sin);
#endif
  }
  return rope_qkv_backward_reference(dq, dk, dv, cos, sin);
}

at::Tensor rotary_attention_unfused(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                    int64_t num_heads) {
  const QkvLayout l = check_qkv(qkv, cos, sin, num_heads);
  const auto rotated = rope_qkv_forward_reference(qkv, cos, sin, num_heads);  // LibTorch ops: autograd differentiates
  const HeadViews views = head_views(rotated, l);
  return merge_heads(naive_attention(views.q, views.k, views.v, /*causal=*/true), l);
}

at::Tensor rotary_attention(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin, int64_t num_heads) {
  const QkvLayout l = check_qkv(qkv, cos, sin, num_heads);
  // Flash refuses some shapes on the GPU (head dims above 128 or not a multiple of 8, fp64):
  // those run the unfused path, rope and the whole score matrix under autograd, so every model
  // size trains, only slower and with seq x seq scores in memory.
  if (!flash_takes(qkv, l)) return rotary_attention_unfused(qkv, cos, sin, num_heads);
  return RotaryAttentionFunction::apply(qkv, cos, sin, num_heads);
}

}  // namespace stepscope::fused
