#include "profiling/range_recorder.h"

#include <chrono>

#ifdef STEPSCOPE_WITH_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace stepscope::profiling {

namespace {

std::atomic<RangeRecorder*> g_active{nullptr};

// Ids of the ranges open on this thread, innermost last.
thread_local std::vector<uint64_t> t_open_ranges;
// Names of the ScopedRanges open on this thread, and the innermost one for every thread.
thread_local std::vector<const char*> t_open_names;
std::atomic<const char*> g_current_name{""};
std::atomic<uint64_t> g_current_id{0};

int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

uint32_t current_thread_id() {
  static std::atomic<uint32_t> next{1};
  thread_local const uint32_t id = next.fetch_add(1);
  return id;
}

RangeRecorder::RangeRecorder(Clock clock) : clock_(clock ? std::move(clock) : Clock(steady_now_ns)) {}

void RangeRecorder::set_step(int step, bool warmup) {
  std::lock_guard<std::mutex> lock(mutex_);
  step_ = step;
  warmup_ = warmup;
}

uint64_t RangeRecorder::push(const char* name) {
  RangeRecord record;
  record.id = next_id_.fetch_add(1);
  record.parent_id = t_open_ranges.empty() ? 0 : t_open_ranges.back();
  record.name = name;
  record.thread_id = current_thread_id();
  record.start_ns = clock_();
  t_open_ranges.push_back(record.id);
  std::lock_guard<std::mutex> lock(mutex_);
  record.step = step_;
  record.warmup = warmup_;
  records_.push_back(std::move(record));
  return records_.back().id;
}

void RangeRecorder::pop(uint64_t id) {
  const int64_t end = clock_();
  if (!t_open_ranges.empty() && t_open_ranges.back() == id) t_open_ranges.pop_back();
  std::lock_guard<std::mutex> lock(mutex_);
  // Ranges close in reverse order of opening, so the one to close is near the end.
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    if (it->id == id) {
      it->end_ns = end;
      return;
    }
  }
}

std::vector<RangeRecord> RangeRecorder::drain() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<RangeRecord> closed, open;
  std::deque<RangeRecord> still_open;
  for (auto& record : records_) {
    if (record.end_ns != 0) {
      closed.push_back(std::move(record));
    } else {
      open.push_back(record);
      still_open.push_back(std::move(record));
    }
  }
  records_ = std::move(still_open);
  closed.insert(closed.end(), open.begin(), open.end());
  return closed;
}

void set_active_range_recorder(RangeRecorder* recorder) { g_active.store(recorder); }
RangeRecorder* active_range_recorder() { return g_active.load(std::memory_order_relaxed); }

const char* current_range_name() { return g_current_name.load(std::memory_order_relaxed); }

uint64_t current_range_id() {
  return t_open_ranges.empty() ? g_current_id.load(std::memory_order_relaxed) : t_open_ranges.back();
}

ScopedRange::ScopedRange(const char* name) : recorder_(active_range_recorder()) {
  t_open_names.push_back(name);
  g_current_name.store(name, std::memory_order_relaxed);
#ifdef STEPSCOPE_WITH_NVTX
  nvtxRangePushA(name);
#endif
  if (recorder_) id_ = recorder_->push(name);
  g_current_id.store(id_, std::memory_order_relaxed);
}

ScopedRange::~ScopedRange() {
  if (recorder_) recorder_->pop(id_);
  g_current_id.store(t_open_ranges.empty() ? 0 : t_open_ranges.back(), std::memory_order_relaxed);
  t_open_names.pop_back();
  g_current_name.store(t_open_names.empty() ? "" : t_open_names.back(), std::memory_order_relaxed);
#ifdef STEPSCOPE_WITH_NVTX
  nvtxRangePop();
#endif
}

}  // namespace stepscope::profiling
