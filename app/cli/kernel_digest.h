#pragma once

#include <ostream>

#include "runners/bench_types.h"

namespace stepscope::cli {

// A few lines on a profiled configuration for the terminal: the kernels that take the time,
// each phase's category shares, softmax against the attention matrix multiplies; or, where
// no GPU activity was recorded, the CPU time of the step's ranges.
void print_kernel_digest(std::ostream& out, const BenchResult& result);

}  // namespace stepscope::cli
