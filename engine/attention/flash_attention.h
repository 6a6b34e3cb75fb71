// FlashAttention-2 as a LibTorch autograd function: the CUDA kernels for CUDA tensors, the
// tiled reference for CPU tensors. Saves Q, K, V, O and the logsumexp for the backward pass,
// never the score matrix.
#pragma once

#include <ATen/core/Tensor.h>

#include "attention/flash_reference.h"

namespace stepscope {

// q: (batch, seq_q, d) or (batch, heads, seq_q, d); k, v: the same with seq_k. Throws
// ConfigError for a shape the kernels refuse (head dims, mismatched sizes, types).
at::Tensor flash_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);

// The passes on their own, for `attention check` and the tests: the kernels on a GPU, the
// reference on the CPU.
FlashForwardResult flash_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);
FlashGradients flash_backward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& o,
                              const at::Tensor& d_o, const at::Tensor& lse, bool causal);

// Throws ConfigError when flash attention cannot take these inputs on their device.
void check_flash_inputs(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v);

}  // namespace stepscope
