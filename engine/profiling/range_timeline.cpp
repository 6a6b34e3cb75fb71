#include "profiling/range_timeline.h"

#include <cstdint>
#include <iterator>

namespace stepscope::profiling {

bool RangeTimeline::add(const RangeRecord& r, uint32_t name) {
  auto [it, inserted] = ranges_.try_emplace(r.id);
  TimedRange& range = it->second;
  const bool was_open = inserted || range.end == 0;
  range = TimedRange{r.id, name, r.parent_id, r.thread_id, r.start_ns, r.end_ns, r.step, r.warmup};
  if (inserted) by_thread_[r.thread_id][{r.start_ns, r.id}] = r.id;
  if (name == step_name_ && step_thread_ == 0) step_thread_ = r.thread_id;
  const bool closes = was_open && r.end_ns != 0;
  if (closes) closed_.emplace_back(r.end_ns, r.id);
  return closes;
}

const TimedRange* RangeTimeline::find(uint64_t id) const {
  const auto found = ranges_.find(id);
  return found == ranges_.end() ? nullptr : &found->second;
}

const TimedRange* RangeTimeline::innermost(uint32_t thread, int64_t time) const {
  const TimedRange* range = innermost_on(thread, time);
  if (range == nullptr && thread != step_thread_) range = innermost_on(step_thread_, time);
  return range;
}

const TimedRange* RangeTimeline::innermost_on(uint32_t thread, int64_t time) const {
  const auto per_thread = by_thread_.find(thread);
  if (per_thread == by_thread_.end()) return nullptr;
  const auto it = per_thread->second.upper_bound({time, UINT64_MAX});
  if (it == per_thread->second.begin()) return nullptr;
  // The latest range started before `time` either contains it or is a descendant of the
  // innermost range that does (ranges nest per thread): walk up.
  uint64_t id = std::prev(it)->second;
  while (id != 0) {
    const TimedRange* range = find(id);
    if (range == nullptr) return nullptr;
    if (range->start <= time && (range->end == 0 || range->end > time)) return range;
    id = range->parent;
  }
  return nullptr;
}

void RangeTimeline::forget_closed_before(int64_t horizon, const std::function<void(uint64_t)>& forgotten) {
  while (!closed_.empty() && closed_.front().first < horizon) {
    const auto it = ranges_.find(closed_.front().second);
    if (it != ranges_.end() && it->second.end != 0) {
      by_thread_[it->second.thread].erase({it->second.start, it->first});
      if (forgotten) forgotten(it->first);
      ranges_.erase(it);
    }
    closed_.pop_front();
  }
}

}  // namespace stepscope::profiling
