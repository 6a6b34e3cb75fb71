#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope {

// Mean over all positions of -log_softmax(logits)[target], max-stabilised.
// logits [..., vocab], targets [...] int64.
at::Tensor mean_cross_entropy(const at::Tensor& logits, const at::Tensor& targets);

}  // namespace stepscope
