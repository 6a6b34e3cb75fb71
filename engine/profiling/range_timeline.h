// The CPU ranges of a run by thread and time, for placing what happened at a moment (a
// kernel's launch, an operator call) in the range innermost then. Calls from threads that
// mark no ranges of their own (autograd's device threads run the backward pass; CUPTI also
// numbers threads its own way) are placed in the ranges open on the thread that runs the
// steps: the one that opens the "step" ranges. Closed ranges are forgotten once older than a
// horizon, so memory stays bounded on long runs.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>

#include "profiling/activity_records.h"

namespace stepscope::profiling {

struct TimedRange {
  uint64_t id = 0;
  uint32_t name = 0;  // interned by the owner
  uint64_t parent = 0;
  uint32_t thread = 0;
  int64_t start = 0, end = 0;  // end 0: still open
  int step = -1;
  bool warmup = false;
};

class RangeTimeline {
 public:
  // `step_name`: the owner's id for the name of the ranges that mark steps.
  explicit RangeTimeline(uint32_t step_name) : step_name_(step_name) {}

  // A new range, or an update of one seen open before (matched by id), named `name`. True
  // when this record closes it (a range first seen closed included).
  bool add(const RangeRecord& record, uint32_t name);
  const TimedRange* find(uint64_t id) const;
  // The range innermost at `time` on `thread`, else on the step thread; null outside every range.
  const TimedRange* innermost(uint32_t thread, int64_t time) const;
  // Forgets the ranges closed before `horizon`, telling `forgotten` (when given) each one's id.
  void forget_closed_before(int64_t horizon, const std::function<void(uint64_t)>& forgotten = {});

 private:
  const TimedRange* innermost_on(uint32_t thread, int64_t time) const;

  uint32_t step_name_;
  uint32_t step_thread_ = 0;
  std::unordered_map<uint64_t, TimedRange> ranges_;
  std::deque<std::pair<int64_t, uint64_t>> closed_;  // (end, id), in the order they closed
  // thread -> (start, id) -> id; ids break ties between ranges opened in the same tick.
  std::map<uint32_t, std::map<std::pair<int64_t, uint64_t>, uint64_t>> by_thread_;
};

}  // namespace stepscope::profiling
