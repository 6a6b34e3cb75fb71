#include "model/loss.h"

#include <torch/torch.h>

namespace stepscope {

at::Tensor mean_cross_entropy(const at::Tensor& logits, const at::Tensor& targets) {
  const int64_t vocab = logits.size(-1);
  // log_softmax subtracts the row maximum internally; one fused kernel instead of the
  // reference's four, with the same result.
  return torch::nn::functional::cross_entropy(logits.reshape({-1, vocab}), targets.reshape({-1}));
}

}  // namespace stepscope
