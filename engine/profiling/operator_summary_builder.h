// Folds operator calls, CPU ranges and GPU activity into an OperatorProfile: per range path
// (from the step's phases down: the "step" range itself is left out of paths),
// operator name and input shapes, the calls, total and self CPU time of the measured steps
// and, on a GPU, the kernels each call launched. A kernel belongs to the operator whose call
// id its launch carried (CUPTI's external correlation): that innermost operator gets it in
// its kernels and self GPU time, and every operator it ran inside counts it in total GPU time.
// Kernels launched outside every operator go under kOutsideOperators of the range innermost
// at the launch; outside every range they are unattributed. Fed incrementally, in any order
// of batches; build() may be called at any time for a live snapshot.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "profiling/activity_records.h"
#include "profiling/kernel_name_table.h"
#include "profiling/operator_calls.h"
#include "profiling/operator_profile.h"
#include "profiling/range_timeline.h"

namespace stepscope::profiling {

struct OperatorSummaryOptions {
  bool include_warmup = false;
  // Calls, ranges and launches older than this, relative to the newest record, are forgotten:
  // a call's kernels arrive within a few activity buffers.
  int64_t attribution_window_ns = int64_t{10} * 1000 * 1000 * 1000;
  size_t max_pending = size_t{1} << 20;  // activity waiting for its launch record or its call
};

class OperatorSummaryBuilder {
 public:
  explicit OperatorSummaryBuilder(OperatorSummaryOptions options = {});

  // New ranges, or updates of ranges seen open before (matched by id). A call's ranges must
  // be added no later than the call: drain the calls first, then the ranges.
  void add_ranges(const std::vector<RangeRecord>& ranges);
  void add_calls(const OperatorCallBatch& batch);
  void add_activity(const ActivityBatch& batch);
  // With `final`, activity still waiting for its launch record or its call is counted as
  // unattributed.
  OperatorProfile build(bool final = false);

 private:
  struct Group {  // one OperatorStats row
    uint32_t path = 0, name = 0, shapes = 0;
    int64_t calls = 0, total_cpu = 0, self_cpu = 0, self_gpu = 0, total_gpu = 0;
    std::map<uint32_t, std::pair<int64_t, int64_t>> kernels;  // kernel -> (launches, GPU time)
  };
  struct Call {
    int64_t group = -1;  // -1: outside the measured steps
    uint64_t parent = 0;
  };
  struct Launch {
    int64_t start = 0;
    uint32_t thread = 0;
    uint64_t call = 0;  // the operator call it ran inside; 0 for none
    bool many = false;  // a graph launch: several kernels share its correlation id
  };
  struct Activity {
    uint32_t kernel = 0;
    int64_t duration = 0;
    uint32_t correlation = 0;
  };
  static constexpr uint32_t kUnresolved = UINT32_MAX;

  uint32_t string_id(const std::string& text);
  uint32_t path_of(uint64_t range_id);
  int64_t group_of(uint32_t path, uint32_t name, uint32_t shapes);
  bool measured(const TimedRange& range) const;
  void add_gpu_time(uint64_t parent, int64_t duration);
  void attribute_pending(bool final);
  bool attribute(const Activity& activity);
  void credit(int64_t group, uint32_t kernel, int64_t duration);
  void forget_old();

  OperatorSummaryOptions options_;
  std::vector<std::string> strings_;  // the recorder's strings, then our own
  std::vector<uint32_t> call_strings_;  // recorder string id -> ours
  std::unordered_map<std::string, uint32_t> string_ids_;
  uint32_t step_name_ = 0;
  RangeTimeline ranges_;
  std::unordered_map<uint64_t, uint32_t> range_paths_;  // range id -> path
  std::vector<std::vector<uint32_t>> paths_;            // by id: range names, outermost first
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> path_ids_;  // (parent path, name) -> path
  std::vector<Group> groups_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> group_ids_;
  KernelNameTable kernels_;
  // Calls by id until their kernels have had time to arrive, in the order they ended.
  std::unordered_map<uint64_t, Call> calls_;
  std::deque<std::pair<int64_t, uint64_t>> call_expiry_;
  // GPU time of kernels whose caller's caller had not ended yet: credited to it when it comes.
  std::unordered_map<uint64_t, int64_t> owed_gpu_;
  std::unordered_map<uint32_t, uint64_t> call_of_correlation_;  // until the API record comes
  std::deque<uint32_t> correlation_order_;
  std::unordered_map<uint32_t, Launch> launches_;
  std::deque<std::pair<int64_t, uint32_t>> launch_expiry_;
  std::vector<Activity> pending_;
  std::map<int, bool> steps_;  // step -> warm-up
  int64_t measured_cpu_ns_ = 0;
  int64_t operator_calls_ = 0;
  uint64_t dropped_calls_ = 0;
  uint64_t dropped_records_ = 0;
  uint64_t unattributed_ = 0;
  bool activity_seen_ = false;
  int64_t newest_ = 0;
};

}  // namespace stepscope::profiling
