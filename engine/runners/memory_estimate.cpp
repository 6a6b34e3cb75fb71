#include "runners/memory_estimate.h"

#include <algorithm>
#include <limits>

namespace stepscope {

namespace {

// The engine's AdamW updates at most this many elements at once; sqrt(v) + eps of a chunk
// is the optimizer's temporary.
constexpr int64_t kAdamWChunkElements = int64_t{128} << 20;

// Bytes the forward pass of one block keeps for backward, counted from the engine's
// operators (model/layers.cpp, attention.cpp): per token, 14 tensors of d_model (norm
// outputs, q/k/v and their rotations, the attention output and its copy, residual sums)
// and 4 of d_ff (w1, silu, w3, their product), and per head the softmax output of s x s.
// Under autocast, matrix products are 16-bit while norms and softmax stay in fp32.
// In doubles: for the largest sizes validate() allows, these products leave 64 bits.
double block_activation_bytes(const ModelConfig& m, double batch, double context, bool half) {
  const double tokens = batch * context;
  const double low = half ? 2 : 4;
  const double norm_tensors = 4, other_d_model_tensors = 10, d_ff_tensors = 4;
  const double d_model_bytes = tokens * static_cast<double>(m.d_model) * (norm_tensors * 4 + other_d_model_tensors * low);
  const double d_ff_bytes = tokens * static_cast<double>(m.d_ff) * d_ff_tensors * low;
  const double scores = batch * static_cast<double>(m.num_heads) * context * context;
  const double attention_bytes = scores * 4 + (half ? scores * low : 0);  // probabilities, and 16-bit scores
  return d_model_bytes + d_ff_bytes + attention_bytes;
}

// Bytes as a count, held at the largest int64 where the double is past it.
int64_t saturated(double bytes) {
  constexpr double kLimit = 9.2e18;
  return bytes >= kLimit ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(bytes);
}

}  // namespace

double estimate_activation_bytes(const BenchConfig& c) {
  const ModelConfig& m = c.model;
  const bool half = c.precision != Precision::fp32;
  const double logits_bytes = 3.0 * static_cast<double>(c.batch) * static_cast<double>(c.context) *
                              static_cast<double>(m.vocab_size) * 4;  // logits, log-softmax, its gradient
  return static_cast<double>(m.num_layers) *
             block_activation_bytes(m, static_cast<double>(c.batch), static_cast<double>(c.context), half) +
         logits_bytes;
}

MemoryEstimate estimate_memory(const BenchConfig& c) {
  MemoryEstimate e;
  const bool half = c.precision != Precision::fp32;
  e.parameters = parameter_count(c.model);
  e.weight_bytes = 4 * e.parameters + (half ? 2 * e.parameters : 0);
  if (runs_backward(c.mode)) e.gradient_bytes = 4 * e.parameters;
  if (runs_optimizer(c.mode)) e.optimizer_bytes = 8 * e.parameters;
  const double activations = estimate_activation_bytes(c);
  e.activation_bytes = saturated(activations);
  // The forward pass holds the activations (and autocast's weight copies, dropped when it
  // ends); gradients grow as the backward pass frees activations; the optimizer's
  // temporaries come after both.
  const int64_t optimizer_temporary = runs_optimizer(c.mode) ? 4 * std::min(e.parameters, kAdamWChunkElements) : 0;
  e.peak_bytes = saturated(static_cast<double>(e.optimizer_bytes) +
                           std::max(static_cast<double>(e.weight_bytes) + activations,
                                    static_cast<double>(4 * e.parameters + e.gradient_bytes + optimizer_temporary)));
  return e;
}

}  // namespace stepscope
