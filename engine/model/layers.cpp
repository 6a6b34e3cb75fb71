#include "model/layers.h"

#include <torch/torch.h>

#include "model/init.h"

namespace stepscope {

LinearImpl::LinearImpl(int64_t d_in, int64_t d_out, const torch::TensorOptions& options) {
  auto w = torch::empty({d_out, d_in}, options);
  truncated_normal_(w, linear_init_std(d_in, d_out));
  weight = register_parameter("weight", w);
}

torch::Tensor LinearImpl::forward(const torch::Tensor& x) { return torch::nn::functional::linear(x, weight); }

EmbeddingImpl::EmbeddingImpl(int64_t vocab_size, int64_t d_model, const torch::TensorOptions& options) {
  auto w = torch::empty({vocab_size, d_model}, options);
  truncated_normal_(w, 1.0);
  weight = register_parameter("weight", w);
}

torch::Tensor EmbeddingImpl::forward(const torch::Tensor& token_ids) { return torch::embedding(weight, token_ids); }

RMSNormImpl::RMSNormImpl(int64_t d_model, const torch::TensorOptions& options, double eps_) : eps(eps_) {
  weight = register_parameter("weight", torch::ones({d_model}, options));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  const auto in_dtype = x.scalar_type();
  const auto x32 = x.to(torch::kFloat32);
  const auto inv_rms = torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return (weight * (x32 * inv_rms)).to(in_dtype);
}

RotaryEmbeddingImpl::RotaryEmbeddingImpl(int64_t context_length, int64_t d_head, double theta,
                                         const torch::TensorOptions& options) {
  // fp32 like the reference, so angles round the same way.
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
  const auto exponents = torch::arange(0, d_head, 2, f32) / static_cast<double>(d_head);
  const auto frequencies = torch::pow(theta, -exponents);
  const auto positions = torch::arange(context_length, f32);
  const auto angles = torch::outer(positions, frequencies);
  cos_ = register_buffer("cos_cache", torch::cos(angles).to(options.device()));
  sin_ = register_buffer("sin_cache", torch::sin(angles).to(options.device()));
}

torch::Tensor RotaryEmbeddingImpl::forward(const torch::Tensor& x) {
  const int64_t seq = x.size(-2);
  TORCH_CHECK(seq <= context_length(), "sequence of ", seq, " tokens is longer than the model's context of ",
              context_length());
  const auto cos = cos_.narrow(0, 0, seq);
  const auto sin = sin_.narrow(0, 0, seq);
  const auto even = x.slice(-1, 0, c10::nullopt, 2);
  const auto odd = x.slice(-1, 1, c10::nullopt, 2);
  const auto rotated_even = cos * even - sin * odd;
  const auto rotated_odd = sin * even + cos * odd;
  return torch::stack({rotated_even, rotated_odd}, -1).flatten(-2).to(x.scalar_type());
}

SwiGLUImpl::SwiGLUImpl(int64_t d_model, int64_t d_ff, const torch::TensorOptions& options) {
  w1 = register_module("w1", Linear(d_model, d_ff, options));
  w2 = register_module("w2", Linear(d_ff, d_model, options));
  w3 = register_module("w3", Linear(d_model, d_ff, options));
}

torch::Tensor SwiGLUImpl::forward(const torch::Tensor& x) {
  return w2(torch::silu(w1(x)) * w3(x));
}

}  // namespace stepscope
