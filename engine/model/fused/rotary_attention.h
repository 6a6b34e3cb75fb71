// Causal attention straight from the fused q/k/v projection: RoPE on q and k in one kernel
// (v copied beside them), FlashAttention on strided views of that one tensor, and in the
// backward one kernel that rotates dq and dk back and writes d_qkv with dv. The rotation is
// the reference's interleaved one: pairs (x[2i], x[2i+1]) of each head turn by pos * theta^(-2i/d).
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// qkv: [batch, seq, 3 * d_model] (q | k | v, heads of d_head inside each); cos, sin:
// [>= seq, d_head / 2] fp32 tables. Returns the attention output [batch, seq, d_model] in
// qkv's dtype. Differentiable in qkv.
at::Tensor rotary_attention(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin, int64_t num_heads);

// What rotary_attention runs where flash attention refuses the shape (check_flash_inputs): the
// reference rotation and naive causal attention (the whole score matrix) in LibTorch ops,
// differentiated by autograd. Same arguments and result.
at::Tensor rotary_attention_unfused(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                    int64_t num_heads);

// The rotation on its own: [batch, seq, 3 * d_model] with q and k rotated and v copied
// (kernels on a GPU, reference on the CPU), and its backward from the three gradients given as
// [batch, heads, seq, d_head] tensors of any strides.
at::Tensor rope_qkv_forward(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin, int64_t num_heads);
at::Tensor rope_qkv_backward(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv, const at::Tensor& cos,
                             const at::Tensor& sin);
at::Tensor rope_qkv_forward_reference(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                      int64_t num_heads);
at::Tensor rope_qkv_backward_reference(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv,
                                       const at::Tensor& cos, const at::Tensor& sin);

}  // namespace stepscope::fused
