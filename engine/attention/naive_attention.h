// Attention as the reference model computes it: the whole score matrix, masked, softmax, then
// the product with V. Its memory grows with seq_q x seq_k; the other implementations are
// checked against it.
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope {

// q: (..., seq_q, d), k and v: (..., seq_k, d). Causal: query i sees keys 0..i (top-left).
at::Tensor naive_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);

// The mask naive attention fills with -inf: true where key j comes after query i.
at::Tensor causal_future_mask(int64_t seq_q, int64_t seq_k, const c10::Device& device);

}  // namespace stepscope
