#include "profiling/kernel_profiler.h"

#include <chrono>

namespace stepscope::profiling {

KernelProfiler::KernelProfiler(std::unique_ptr<ActivitySource> source, ProfilerOptions options)
    : source_(std::move(source)), options_(options), builder_(SummaryOptions{options.include_warmup}) {
  RangeRecorder::Clock clock;
  if (source_) clock = [source = source_.get()] { return source->now_ns(); };
  recorder_ = std::make_unique<RangeRecorder>(clock);
}

KernelProfiler::~KernelProfiler() {
  if (worker_.joinable()) finish();
}

void KernelProfiler::subscribe(Subscriber subscriber) {
  std::lock_guard<std::mutex> lock(mutex_);
  subscribers_.push_back(std::move(subscriber));
}

void KernelProfiler::start() {
  if (source_) {
    std::string why_not;
    collecting_ = source_->start(why_not);
    if (!collecting_) source_message_ = source_->name() + " unavailable: " + why_not + "; CPU range timings only";
  } else {
    source_message_ = "no GPU activity source on this device or build; CPU range timings only";
  }
  set_active_range_recorder(recorder_.get());
  stopping_ = false;
  worker_ = std::thread([this] { run_worker(); });
}

void KernelProfiler::begin_step(int step, bool warmup) { recorder_->set_step(step, warmup); }

void KernelProfiler::run_worker() {
  std::unique_lock<std::mutex> wake_lock(wake_mutex_);
  while (!stopping_) {
    wake_.wait_for(wake_lock, std::chrono::milliseconds(options_.publish_interval_ms), [this] { return stopping_; });
    if (stopping_) break;
    wake_lock.unlock();
    ingest();
    const KernelProfile profile = snapshot(false);
    std::vector<Subscriber> subscribers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      subscribers = subscribers_;
    }
    for (const auto& subscriber : subscribers) subscriber(profile);
    wake_lock.lock();
  }
}

void KernelProfiler::ingest() {
  if (collecting_) source_->flush_completed();
  // Ranges first: every API call in the batch ran inside a range pushed before it.
  auto ranges = recorder_->drain();
  ActivityBatch batch = collecting_ ? source_->take() : ActivityBatch();
  std::lock_guard<std::mutex> lock(mutex_);
  builder_.add_ranges(ranges);
  builder_.add_activity(batch);
  if (!batch.error.empty() && source_message_.empty()) source_message_ = batch.error;
  keep_for_trace(ranges, batch);
}

void KernelProfiler::keep_for_trace(const std::vector<RangeRecord>& ranges, const ActivityBatch& batch) {
  for (const auto& range : ranges) {
    if (range.end_ns == 0) continue;  // reported again once closed
    trace_ranges_.push_back(range);
  }
  auto append = [](auto& into, const auto& from) { into.insert(into.end(), from.begin(), from.end()); };
  append(trace_activity_.kernels, batch.kernels);
  append(trace_activity_.memory, batch.memory);
  append(trace_activity_.api, batch.api);
  // Keep the latest records: drop the oldest half of whatever kind overflows.
  auto trim = [this](auto& records) {
    if (records.size() <= options_.trace_record_limit) return;
    records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(records.size() / 2));
    trace_truncated_ = true;
  };
  trim(trace_activity_.kernels);
  trim(trace_activity_.memory);
  trim(trace_activity_.api);
  if (trace_ranges_.size() > options_.trace_record_limit) {
    trace_ranges_.erase(trace_ranges_.begin(), trace_ranges_.begin() + trace_ranges_.size() / 2);
    trace_truncated_ = true;
  }
}

KernelProfile KernelProfiler::snapshot(bool final) {
  std::lock_guard<std::mutex> lock(mutex_);
  KernelProfile profile = builder_.build(final);
  profile.source_message = source_message_;
  return profile;
}

KernelProfile KernelProfiler::finish() {
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
  set_active_range_recorder(nullptr);
  if (collecting_) source_->stop();
  ingest();
  collecting_ = false;
  return snapshot(true);
}

TraceWindow KernelProfiler::trace() const {
  std::lock_guard<std::mutex> lock(mutex_);
  TraceWindow window;
  window.ranges.assign(trace_ranges_.begin(), trace_ranges_.end());
  window.activity = trace_activity_;
  window.truncated = trace_truncated_;
  return window;
}

}  // namespace stepscope::profiling
