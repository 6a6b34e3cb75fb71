// Attention by implementation, for the sweep and the model: one call, the same inputs and
// semantics (scale 1/sqrt(d), top-left causal mask) whichever implementation runs.
#pragma once

#include <ATen/core/Tensor.h>

#include "attention/attention_types.h"

namespace stepscope {

// q: (..., seq_q, d); k, v: (..., seq_k, d). Differentiable with each implementation.
at::Tensor attend(AttentionImpl impl, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);

// Throws ConfigError when `impl` cannot run in this build or on `device` with these sizes
// (sdpa on LibTorch 1.13, flash kernels' head dims), before anything is allocated.
void check_attention_impl(AttentionImpl impl, const Device& device, int64_t head_dim, int64_t seq_q,
                          int64_t seq_k);

}  // namespace stepscope
