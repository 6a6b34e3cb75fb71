// Matrix-multiply FLOPs of a step, counted from the configuration. Elementwise work
// (norms, softmax, the optimizer) is left out, as in the usual MFU convention.
#pragma once

#include <cstdint>

#include "model/model_config.h"

namespace stepscope {

// One forward pass over `batch` sequences of `context` tokens. Attention counts the
// full context x context score matrix, because the reference computes all of it.
double forward_matmul_flops(const ModelConfig& config, int64_t batch, int64_t context);

// The backward pass computes gradients for both operands of every product: twice the forward.
inline double backward_matmul_flops(const ModelConfig& config, int64_t batch, int64_t context) {
  return 2.0 * forward_matmul_flops(config, batch, context);
}

// One step: the forward pass, and the backward pass when the step runs one.
inline double step_matmul_flops(const ModelConfig& config, int64_t batch, int64_t context, bool with_backward) {
  return forward_matmul_flops(config, batch, context) +
         (with_backward ? backward_matmul_flops(config, batch, context) : 0.0);
}

}  // namespace stepscope
