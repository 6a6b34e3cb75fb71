// The reference model's building blocks, with the parameter names of its state_dict.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace stepscope {

// y = x W^T, no bias; weight [d_out, d_in].
class LinearImpl : public torch::nn::Module {
 public:
  LinearImpl(int64_t d_in, int64_t d_out, const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight;
};
TORCH_MODULE(Linear);

// weight [vocab, d_model]; forward = weight[ids].
class EmbeddingImpl : public torch::nn::Module {
 public:
  EmbeddingImpl(int64_t vocab_size, int64_t d_model, const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& token_ids);
  torch::Tensor weight;
};
TORCH_MODULE(Embedding);

// x * rsqrt(mean(x^2) + eps) * weight, computed in fp32 and cast back to x's dtype.
class RMSNormImpl : public torch::nn::Module {
 public:
  RMSNormImpl(int64_t d_model, const torch::TensorOptions& options, double eps = 1e-5);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight;
  double eps;
};
TORCH_MODULE(RMSNorm);

// Interleaved rotary embedding: pairs (x[2i], x[2i+1]) rotate by pos * theta^(-2i/d).
// The cos/sin tables are buffers that are not part of the state_dict.
class RotaryEmbeddingImpl : public torch::nn::Module {
 public:
  RotaryEmbeddingImpl(int64_t context_length, int64_t d_head, double theta, const torch::TensorOptions& options);
  // x: [..., seq, d_head]; rotates by positions 0..seq-1.
  torch::Tensor forward(const torch::Tensor& x);
  int64_t context_length() const { return cos_.size(0); }
  // [context, d_head / 2] fp32: the angles' cosines and sines (the fused engine rotates with them).
  const torch::Tensor& cos_table() const { return cos_; }
  const torch::Tensor& sin_table() const { return sin_; }

 private:
  torch::Tensor cos_;  // [context, d_head / 2], fp32
  torch::Tensor sin_;
};
TORCH_MODULE(RotaryEmbedding);

// w2(silu(w1 x) * w3 x).
class SwiGLUImpl : public torch::nn::Module {
 public:
  SwiGLUImpl(int64_t d_model, int64_t d_ff, const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& x);
  Linear w1{nullptr}, w2{nullptr}, w3{nullptr};
};
TORCH_MODULE(SwiGLU);

}  // namespace stepscope
