#pragma once

#include <string>
#include <vector>

#include "profiling/activity_records.h"
#include "profiling/operator_calls.h"

namespace stepscope::profiling {

// The raw records of the latest part of a run, for the Chrome/Perfetto trace.
struct TraceWindow {
  std::vector<RangeRecord> ranges;
  ActivityBatch activity;
  // With the operator profiler: its calls, their names and input shapes by string id.
  std::vector<OperatorCallRecord> operator_calls;
  std::vector<std::string> operator_strings;
  bool truncated = false;  // older records were dropped to stay within the limit
};

}  // namespace stepscope::profiling
