#pragma once

#include <cstdint>
#include <vector>

#include "runners/bench_types.h"

namespace stepscope {

// Mean, sample standard deviation (n - 1; 0 for one sample), min, median, max, in ms.
PhaseStats summarize_ns(const std::vector<int64_t>& durations_ns);

}  // namespace stepscope
