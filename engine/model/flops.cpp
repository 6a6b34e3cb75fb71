#include "model/flops.h"

namespace stepscope {

double forward_matmul_flops(const ModelConfig& c, int64_t batch, int64_t context) {
  const double tokens = static_cast<double>(batch) * static_cast<double>(context);
  const double d = static_cast<double>(c.d_model);
  const double projections = 2.0 * tokens * 4.0 * d * d;                      // q, k, v, output
  const double feed_forward = 2.0 * tokens * 3.0 * d * static_cast<double>(c.d_ff);  // w1, w3, w2
  // Q K^T and P V, summed over heads: each 2 * context * context * d_head per head and sequence.
  const double attention = 2.0 * 2.0 * static_cast<double>(batch) * context * static_cast<double>(context) * d;
  const double lm_head = 2.0 * tokens * d * static_cast<double>(c.vocab_size);
  return static_cast<double>(c.num_layers) * (projections + feed_forward + attention) + lm_head;
}

}  // namespace stepscope
