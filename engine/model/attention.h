#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "attention/attention_impl.h"
#include "model/layers.h"

namespace stepscope {

// Causal multi-head self-attention. Naive is the reference's: the full score matrix, masked
// with -inf above the diagonal, softmax, then the weighted sum of values, each in its own
// profiling range; sdpa and flash compute the same in one fused call.
class CausalSelfAttentionImpl : public torch::nn::Module {
 public:
  CausalSelfAttentionImpl(int64_t d_model, int64_t num_heads, AttentionImpl impl, const torch::TensorOptions& options);
  // x: [batch, seq, d_model]; rope is shared by all layers; future_mask[i][j] is true
  // where key j comes after query i.
  torch::Tensor forward(const torch::Tensor& x, RotaryEmbedding& rope, const torch::Tensor& future_mask);

  Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, output_proj{nullptr};

 private:
  int64_t num_heads_;
  AttentionImpl impl_;
};
TORCH_MODULE(CausalSelfAttention);

}  // namespace stepscope
