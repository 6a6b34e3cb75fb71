#pragma once

#include <ostream>

#include "runners/bench_types.h"

namespace stepscope::cli {

// A few lines on a configuration's operator profile for the terminal: how much of the steps'
// CPU time the operators' self times account for, and the operators that take the most self
// CPU time (with their self GPU time where kernels were recorded). Nothing without a profile.
void print_operator_digest(std::ostream& out, const BenchResult& result);

}  // namespace stepscope::cli
