#pragma once

#include <ostream>
#include <vector>

#include "runners/bench_types.h"

namespace stepscope::cli {

// A fixed-width summary of benchmark rows for people reading a terminal.
void print_bench_table(std::ostream& out, const std::vector<BenchResult>& results);

}  // namespace stepscope::cli
