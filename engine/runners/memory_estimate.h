// What a configuration will need in device memory, from its shape alone: shown while the
// user edits a run, with a warning when it will not fit. An estimate, not a measurement:
// within about 10 % of the engine's measured peaks for the handout's models (see the test).
#pragma once

#include <cstdint>

#include "runners/bench_types.h"

namespace stepscope {

struct MemoryEstimate {
  int64_t parameters = 0;
  int64_t weight_bytes = 0;        // fp32 master weights, plus the 16-bit copies autocast caches
  int64_t gradient_bytes = 0;      // modes with a backward pass
  int64_t optimizer_bytes = 0;     // AdamW's two moments, train steps
  int64_t activation_bytes = 0;    // what the forward pass saves for backward
  int64_t peak_bytes = 0;          // the estimated highest point of a step
};

MemoryEstimate estimate_memory(const BenchConfig& config);
// The activation bytes estimate_memory counts, before they are held at int64's largest value:
// what the planner derives from (per token, per device), so no saturated total reaches its numbers.
double estimate_activation_bytes(const BenchConfig& config);

}  // namespace stepscope
