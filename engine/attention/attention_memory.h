// What attention keeps in memory, by formula: the seeds' memory accounting (naive attention
// keeps the seq x seq probabilities for its backward pass; flash keeps one number per query),
// and the estimate that refuses a configuration that clearly cannot fit before allocating.
// One place for these formulas: the precheck, the tests and the app's accounting all read them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention_types.h"

namespace stepscope {

int64_t element_bytes(Precision precision);

// One line of the accounting: what it is, its formula in b, h, s, d and e (bytes per element),
// and its size for the configuration.
struct MemoryTerm {
  std::string what;
  std::string formula;
  int64_t bytes = 0;
};

struct AttentionMemory {
  MemoryTerm inputs;     // Q, K, V and dO
  MemoryTerm saved;      // what the forward keeps for the backward, beyond the inputs
  MemoryTerm gradients;  // dQ, dK, dV
  MemoryTerm transient;  // working buffers that live only inside one pass
  int64_t before_backward_bytes() const { return inputs.bytes + saved.bytes; }
  // The estimate's peak during forward + backward: every term at once.
  int64_t peak_bytes() const { return inputs.bytes + saved.bytes + gradients.bytes + transient.bytes; }
  std::vector<MemoryTerm> terms() const { return {inputs, saved, gradients, transient}; }
};

AttentionMemory attention_memory(const AttentionConfig& config);

// "b = 8, h = 1, s = 16384, d = 16, e = 4 bytes": the symbols of the formulas, for people.
std::string memory_symbols(const AttentionConfig& config);

}  // namespace stepscope
