#include "attention/naive_attention.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

namespace stepscope {

at::Tensor causal_future_mask(int64_t seq_q, int64_t seq_k, const c10::Device& device) {
  return torch::ones({seq_q, seq_k}, torch::TensorOptions().dtype(torch::kBool).device(device)).triu(1);
}

at::Tensor naive_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * scale;
  if (causal) {
    // In place: the product's backward needs q and k, not its output.
    scores.masked_fill_(causal_future_mask(q.size(-2), k.size(-2), q.device()),
                        -std::numeric_limits<double>::infinity());
  }
  return torch::matmul(torch::softmax(scores, -1), v);
}

}  // namespace stepscope
