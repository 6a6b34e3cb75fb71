// Turns CPU ranges and GPU activity records into kernel summaries. Each kernel or copy is
// attributed to the range that was innermost when the API call that launched it ran: on the
// launching thread, or, for launches from other threads (autograd's device threads run the
// backward pass), on the thread that runs the steps. Fed incrementally; build() may be
// called at any time for a live snapshot.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/activity_records.h"
#include "profiling/duration_stats.h"
#include "profiling/kernel_profile.h"

namespace stepscope::profiling {

struct SummaryOptions {
  bool include_warmup = false;
  size_t median_sample_cap = 4096;
  // Ranges and API calls older than this, relative to the newest activity, are forgotten:
  // CUPTI delivers a launch's records within a few buffer flushes.
  int64_t attribution_window_ns = int64_t{60} * 1000 * 1000 * 1000;
  size_t max_pending = 1 << 20;  // activity waiting for its API record
};

inline constexpr const char* kMeasuredWindow = "measured window";

class KernelSummaryBuilder {
 public:
  explicit KernelSummaryBuilder(SummaryOptions options = {});

  // New ranges, or updates of ranges seen open before (matched by id).
  void add_ranges(const std::vector<RangeRecord>& ranges);
  void add_activity(const ActivityBatch& batch);
  // With `final`, activity still waiting for its API record is counted as unattributed.
  KernelProfile build(bool final = false);

 private:
  struct Range {
    std::string name;
    uint64_t parent = 0;
    uint32_t thread = 0;
    int64_t start = 0, end = 0;  // end 0: still open
    int step = -1;
    bool warmup = false;
  };
  struct Activity {
    std::string name;  // demangled kernel name, or "[CUDA memcpy HtoD]" style for copies
    bool is_memory = false;
    int64_t start = 0, end = 0;
    uint32_t correlation = 0;
  };
  struct NameInfo {
    std::string short_name;
    KernelCategory category;
  };

  void attribute_pending(bool final);
  bool attribute(const Activity& activity);
  const Range* innermost(uint32_t thread, int64_t time) const;
  void record(const Activity& activity, const Range& range, uint64_t range_id);
  void forget_old(int64_t newest);
  const NameInfo& name_info(const std::string& name, bool is_memory);

  SummaryOptions options_;
  std::unordered_map<uint64_t, Range> ranges_;
  // thread -> (start, id) -> id; ids break ties between ranges opened in the same tick.
  std::map<uint32_t, std::map<std::pair<int64_t, uint64_t>, uint64_t>> ranges_by_thread_;
  uint32_t step_thread_ = 0;  // the thread that opens "step" ranges
  std::unordered_map<uint32_t, ApiRecord> launches_;  // by correlation id
  std::vector<Activity> pending_;
  std::map<std::pair<std::string, std::string>, DurationStats> stats_;  // (range, kernel)
  std::unordered_map<std::string, NameInfo> names_;
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> step_intervals_;
  std::map<int, StepGpuUsage> finished_steps_;
  std::map<std::string, std::pair<int64_t, int64_t>> cpu_ranges_;  // name -> (count, total)
  std::map<int, bool> steps_;  // step -> warm-up
  uint64_t dropped_ = 0;
  uint64_t unattributed_ = 0;
  int64_t newest_ = 0;
};

}  // namespace stepscope::profiling
