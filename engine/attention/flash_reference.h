// FlashAttention-2 written with LibTorch operations, tile by tile as Algorithm 1 and the
// backward pass of the seeds' handout do: the reference the CUDA kernels are checked against,
// and the flash implementation of CPU runs. Math in fp32 whatever the inputs' type; results in
// the inputs' type (lse in fp32).
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope {

struct FlashForwardResult {
  at::Tensor o;    // (..., seq_q, d), the inputs' type
  at::Tensor lse;  // (..., seq_q), fp32: log of each query row's softmax denominator, scale included
};

struct FlashGradients {
  at::Tensor dq, dk, dv;
};

// Tiles of `tile` queries by `tile` keys (at least 16). Causal: query i sees keys 0..i.
FlashForwardResult flash_reference_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal,
                                           int64_t tile = 64);
FlashGradients flash_reference_backward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                        const at::Tensor& o, const at::Tensor& d_o, const at::Tensor& lse,
                                        bool causal, int64_t tile = 64);

}  // namespace stepscope
