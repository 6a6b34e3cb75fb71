// Turns CPU ranges and GPU activity records into kernel summaries. Each kernel or copy is
// attributed to the range that was innermost when the API call that launched it ran: on the
// launching thread, or, for launches from other threads (autograd's device threads run the
// backward pass), on the thread that runs the steps. Fed incrementally; build() may be
// called at any time for a live snapshot.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/activity_records.h"
#include "profiling/duration_stats.h"
#include "profiling/kernel_name_table.h"
#include "profiling/kernel_profile.h"
#include "profiling/range_timeline.h"
#include "profiling/step_ranges.h"

namespace stepscope::profiling {

struct SummaryOptions {
  bool include_warmup = false;
  size_t median_sample_cap = 4096;
  // Ranges and launch calls older than this, relative to the newest call, are forgotten
  // (a launch also once its activity arrived): CUPTI delivers a launch's records within a
  // few buffers, and memory stays bounded on long runs.
  int64_t attribution_window_ns = int64_t{10} * 1000 * 1000 * 1000;
  size_t max_pending = 1 << 20;  // activity waiting for its API record
};

inline constexpr const char* kMeasuredWindow = step_ranges::kMeasuredWindow;

class KernelSummaryBuilder {
 public:
  explicit KernelSummaryBuilder(SummaryOptions options = {});

  // New ranges, or updates of ranges seen open before (matched by id).
  void add_ranges(const std::vector<RangeRecord>& ranges);
  void add_activity(const ActivityBatch& batch);
  // With `final`, activity still waiting for its API record is counted as unattributed.
  KernelProfile build(bool final = false);

 private:
  // Names are interned: attribution runs for every kernel, so it compares integers, not
  // demangled template names hundreds of characters long.
  struct Launch {
    int64_t start = 0;
    uint32_t thread = 0;
    bool many = false;  // a graph launch: several kernels share its correlation id
  };
  struct Activity {
    uint32_t kernel = 0;
    int64_t start = 0, end = 0;
    uint32_t correlation = 0;
  };

  void attribute_pending(bool final);
  bool attribute(const Activity& activity);
  void forget_old(int64_t newest);
  uint32_t range_name_id(const std::string& name);
  uint32_t intern_fixed_range_names();  // the measured window as 0; returns "step"'s id

  SummaryOptions options_;
  std::vector<std::string> range_names_;  // by id; 0 is the measured window
  std::unordered_map<std::string, uint32_t> range_name_ids_;
  KernelNameTable kernels_;
  uint32_t step_range_name_ = 0;
  RangeTimeline ranges_;
  // Calls that start GPU work, by correlation id, until their activity arrives or they expire.
  std::unordered_map<uint32_t, Launch> launches_;
  std::deque<std::pair<int64_t, uint32_t>> launch_expiry_;  // (end, correlation), in arrival order
  std::vector<Activity> pending_;
  std::unordered_map<uint64_t, DurationStats> stats_;  // (range name << 32 | kernel)
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> step_intervals_;
  std::map<int, StepGpuUsage> finished_steps_;
  // (parent name, name) -> (count, total)
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> cpu_ranges_;
  std::map<int, bool> steps_;  // step -> warm-up
  uint64_t dropped_ = 0;
  uint64_t unattributed_ = 0;
  uint64_t untimed_ = 0;
  int64_t newest_ = 0;
};

}  // namespace stepscope::profiling
