// Matrix-multiply FLOPs of a step, counted from the configuration. Elementwise work
// (norms, softmax, the optimizer) is left out, as in the usual MFU convention.
#pragma once

#include <cstdint>

#include "model/model_config.h"

namespace stepscope {

// One forward pass over `batch` sequences of `context` tokens. Attention counts the
// full context x context score matrix, because the reference computes all of it.
double forward_matmul_flops(const ModelConfig& config, int64_t batch, int64_t context);

// The backward pass computes gradients for both operands of every product: twice the forward.
inline double backward_matmul_flops(const ModelConfig& config, int64_t batch, int64_t context) {
  return 2.0 * forward_matmul_flops(config, batch, context);
}

// One step: the forward pass, and the backward pass when the step runs one.
inline double step_matmul_flops(const ModelConfig& config, int64_t batch, int64_t context, bool with_backward) {
  return forward_matmul_flops(config, batch, context) +
         (with_backward ? backward_matmul_flops(config, batch, context) : 0.0);
}

// Attention's two products (QK^T and PV) as FlashAttention counts them: 4 * b * h * s_q * s_k * d,
// halved when causal (about half the scores are masked and skipped).
inline double attention_forward_flops(int64_t batch, int64_t heads, int64_t seq_q, int64_t seq_k, int64_t head_dim,
                                      bool causal) {
  const double flops = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(seq_q) *
                       static_cast<double>(seq_k) * static_cast<double>(head_dim);
  return causal ? flops / 2.0 : flops;
}

// Its backward pass: five products (the recomputed scores, dV, dP, dQ, dK) for the forward's two.
inline double attention_backward_flops(int64_t batch, int64_t heads, int64_t seq_q, int64_t seq_k, int64_t head_dim,
                                       bool causal) {
  return 2.5 * attention_forward_flops(batch, heads, seq_q, seq_k, head_dim, causal);
}

}  // namespace stepscope
