// What a finished configuration hands to the views: the engine's result, and what the
// worker thread derived from it so the GUI thread does not have to.
#pragma once

#include <memory>

#include "charts/memory_chart_data.h"
#include "profiling/memory_timeline.h"
#include "runners/bench_types.h"

namespace stepscope::views {

struct RunOutcome {
  std::shared_ptr<const BenchResult> result;
  std::shared_ptr<const profiling::MemoryTimeline> timeline;  // with memory profiling
  // The timeline's chart data, built where the timeline was (it takes tens of milliseconds).
  std::shared_ptr<const MemoryChartData> memory_chart;
};

}  // namespace stepscope::views
