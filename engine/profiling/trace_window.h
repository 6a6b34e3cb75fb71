#pragma once

#include <vector>

#include "profiling/activity_records.h"

namespace stepscope::profiling {

// The raw records of the latest part of a run, for the Chrome/Perfetto trace.
struct TraceWindow {
  std::vector<RangeRecord> ranges;
  ActivityBatch activity;
  bool truncated = false;  // older records were dropped to stay within the limit
};

}  // namespace stepscope::profiling
