// Named CPU ranges (step, forward, backward, attention scores, ...), recorded on the clock of
// the active activity source so GPU work can be attributed to them, and mirrored as NVTX
// ranges in CUDA builds so an `nsys` run shows the same structure.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <deque>
#include <vector>

#include "profiling/activity_records.h"

namespace stepscope::profiling {

class RangeRecorder {
 public:
  using Clock = std::function<int64_t()>;
  explicit RangeRecorder(Clock clock = {});

  // Following ranges belong to this step (-1: none) and are flagged as warm-up or not.
  void set_step(int step, bool warmup);
  uint64_t push(const char* name);
  void pop(uint64_t id);

  // Hands over the ranges closed since the last call (and forgets them, so a long run holds
  // only what is open), followed by copies of the ranges still open (end_ns = 0).
  std::vector<RangeRecord> drain();
  int64_t now() const { return clock_(); }

 private:
  Clock clock_;
  mutable std::mutex mutex_;
  std::deque<RangeRecord> records_;  // open ones, and closed ones not yet drained
  std::atomic<uint64_t> next_id_{1};
  int step_ = -1;
  bool warmup_ = false;
};

// The recorder that ScopedRange reports to; nullptr when no profiler runs (then a range
// costs one atomic load, plus an NVTX push/pop in CUDA builds).
void set_active_range_recorder(RangeRecorder* recorder);
RangeRecorder* active_range_recorder();

class ScopedRange {
 public:
  explicit ScopedRange(const char* name);
  ~ScopedRange();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  RangeRecorder* recorder_;
  uint64_t id_ = 0;
};

// The innermost ScopedRange open now (on the thread that runs the steps, the only one that
// marks ranges), "" when none: what an allocation made at this moment belongs to. Range
// names are string literals, so a pointer is enough.
const char* current_range_name();
// The id of the innermost range open now, for what happens inside it (an operator call): the
// calling thread's own, or, on a thread that marks none (autograd's device threads, which run
// the backward pass while the step thread waits in "backward"), the step thread's. 0 outside
// every range or when no recorder runs.
uint64_t current_range_id();

// Small numeric id of the calling thread, stable for its lifetime.
uint32_t current_thread_id();

}  // namespace stepscope::profiling
