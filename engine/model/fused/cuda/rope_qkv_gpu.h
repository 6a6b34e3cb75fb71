// The RoPE q/k/v kernels called with LibTorch tensors on the current stream. Shapes are checked
// by the caller (rotary_attention.cpp); these check what the kernels need of the views.
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// qkv [batch, seq, 3 * heads * d_head] (any batch and seq strides), cos, sin [>= seq, d_head / 2]
// fp32 on qkv's GPU. Returns a contiguous tensor of qkv's shape and type.
at::Tensor rope_qkv_forward_gpu(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                int64_t num_heads);
// dq, dk, dv [batch, heads, seq, d_head] of one type, any strides. Returns a contiguous
// [batch, seq, 3 * heads * d_head] tensor of their type.
at::Tensor rope_qkv_backward_gpu(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv,
                                 const at::Tensor& cos, const at::Tensor& sin);

}  // namespace stepscope::fused
