// Naive attention in double precision over float tensors, the flash kernels' reference.
// Views follow flash_attention_args.h: (batch, heads, seq, head_dim) given by element
// strides, head_dim contiguous; lse is contiguous (batch, heads, seq_q), natural log; causal
// masking is top-left aligned (query i sees keys 0..i).
#pragma once

#include "kernels/flash_attention_args.h"

namespace stepscope::kernels::testing {

struct ConstView {
  const float* data = nullptr;
  Strides strides;
};

struct MutableView {
  float* data = nullptr;
  Strides strides;
};

void attention_forward_reference(const AttentionShape& shape, double scale, ConstView q,
                                 ConstView k, ConstView v, MutableView o, float* lse);

// Gradients of sum(O * dO) with respect to Q, K and V; P is recomputed from Q and K.
void attention_backward_reference(const AttentionShape& shape, double scale, ConstView q,
                                  ConstView k, ConstView v, ConstView d_o, MutableView dq,
                                  MutableView dk, MutableView dv);

}  // namespace stepscope::kernels::testing
