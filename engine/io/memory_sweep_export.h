// The handout's memory table: peak memory of a forward pass and of a full training step per
// model, context length and precision, one row each, "OOM" where a configuration ran out.
#pragma once

#include <ostream>
#include <vector>

#include "runners/bench_types.h"

namespace stepscope {

// True when `results` hold both forward and train rows, so the table has something to pair.
bool has_memory_sweep(const std::vector<BenchResult>& results);
void write_memory_sweep_csv(std::ostream& out, const std::vector<BenchResult>& results);

}  // namespace stepscope
