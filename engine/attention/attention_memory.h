// What attention keeps in memory, by formula: the seeds' memory accounting (naive attention
// keeps the seq x seq probabilities for its backward pass; flash keeps one number per query),
// and the estimate that refuses a configuration that clearly cannot fit before allocating.
#pragma once

#include <cstdint>
#include <string>

#include "attention/attention_types.h"

namespace stepscope {

int64_t element_bytes(Precision precision);

struct AttentionMemory {
  int64_t inputs_bytes = 0;           // Q, K, V and dO: 4 * b*h*s*d * e
  int64_t saved_for_backward_bytes = 0;  // beyond the inputs, after the forward pass
  int64_t peak_bytes = 0;             // the estimate's peak during forward + backward
  std::string saved_formula;          // how saved_for_backward_bytes was counted, for people
};

AttentionMemory attention_memory(const AttentionConfig& config);

}  // namespace stepscope
