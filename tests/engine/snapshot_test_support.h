// What both memory-snapshot test files read: the committed fixture's path and a timeline's
// "overall" peak.
#pragma once

#include <string>

#include "profiling/memory_timeline.h"

namespace stepscope::testing {

inline std::string snapshot_data_path(const std::string& relative) {
  return std::string(STEPSCOPE_TEST_DATA_DIR) + "/" + relative;
}

// The "overall" peak of `t` (rule 6 of memory_timeline.h), or nullptr when it has none.
inline const profiling::MemoryPeak* overall(const profiling::MemoryTimeline& t) {
  for (const auto& p : t.peaks) {
    if (p.label == "overall") return &p;
  }
  return nullptr;
}

}  // namespace stepscope::testing
