#pragma once

#include <ostream>

#include <string>

#include "profiling/kernel_profile.h"
#include "runners/bench_types.h"

namespace stepscope::cli {

// A few lines on a profiled configuration for the terminal: the kernels that take the time,
// each phase's category shares, softmax against the attention matrix multiplies; or, where
// no GPU activity was recorded, the CPU time of the step's ranges.
void print_kernel_digest(std::ostream& out, const BenchResult& result);
// The same for any kernel profile ("kernels of <what>, N measured step(s):"); false where it
// holds no GPU activity (then the CPU time per range is what it printed).
bool print_profile_digest(std::ostream& out, const profiling::KernelProfile& profile, const std::string& what);

}  // namespace stepscope::cli
