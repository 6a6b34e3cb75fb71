// Summary statistics of a phase's measured durations.
#pragma once

#include <cstdint>
#include <vector>

namespace stepscope {

struct PhaseStats {
  double mean_ms = 0, std_ms = 0, min_ms = 0, median_ms = 0, max_ms = 0;
  int count = 0;
};

// Mean, sample standard deviation (n - 1; 0 for one sample), min, median, max, in ms.
PhaseStats summarize_ns(const std::vector<int64_t>& durations_ns);

}  // namespace stepscope
