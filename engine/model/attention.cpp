#include "model/attention.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "attention/attend.h"
#include "profiling/range_recorder.h"

namespace stepscope {

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t d_model, int64_t num_heads, AttentionImpl impl,
                                                 const torch::TensorOptions& options)
    : num_heads_(num_heads), impl_(impl) {
  q_proj = register_module("q_proj", Linear(d_model, d_model, options));
  k_proj = register_module("k_proj", Linear(d_model, d_model, options));
  v_proj = register_module("v_proj", Linear(d_model, d_model, options));
  output_proj = register_module("output_proj", Linear(d_model, d_model, options));
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x, RotaryEmbedding& rope,
                                               const torch::Tensor& future_mask) {
  const int64_t batch = x.size(0), seq = x.size(1), d_model = x.size(2);
  const int64_t d_head = d_model / num_heads_;
  const auto split_heads = [&](const torch::Tensor& t) {
    return t.view({batch, seq, num_heads_, d_head}).transpose(1, 2);  // b h s d
  };
  const auto q = rope(split_heads(q_proj(x)));
  const auto k = rope(split_heads(k_proj(x)));
  const auto v = split_heads(v_proj(x));

  torch::Tensor scores, probabilities, mixed;
  if (impl_ != AttentionImpl::naive) {
    profiling::ScopedRange range(impl_ == AttentionImpl::flash ? "flash attention" : "sdpa");
    // The fused calls take one type; under autocast V has it (rope may widen Q and K).
    mixed = attend(impl_, q.to(v.scalar_type()), k.to(v.scalar_type()), v, /*causal=*/true);
    return output_proj(mixed.transpose(1, 2).reshape({batch, seq, d_model}));
  }
  {
    profiling::ScopedRange range("attention scores");
    scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(d_head));
    // In place: the product's backward needs q and k, not its output, so no copy is kept.
    scores.masked_fill_(future_mask, -std::numeric_limits<double>::infinity());
  }
  {
    profiling::ScopedRange range("softmax");
    probabilities = torch::softmax(scores, -1);
  }
  {
    profiling::ScopedRange range("final matmul");
    mixed = torch::matmul(probabilities, v);  // b h s d
  }
  return output_proj(mixed.transpose(1, 2).reshape({batch, seq, d_model}));
}

}  // namespace stepscope
