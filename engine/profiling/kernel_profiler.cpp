#include "profiling/kernel_profiler.h"

#include <chrono>

namespace stepscope::profiling {

KernelProfiler::KernelProfiler(std::unique_ptr<ActivitySource> source, ProfilerOptions options)
    : source_(std::move(source)),
      options_(options),
      builder_(SummaryOptions{options.include_warmup}),
      operator_builder_(OperatorSummaryOptions{options.include_warmup}) {
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
  std::string without_source;  // why there will be no GPU activity
  if (source_) {
    std::string why_not;
    collecting_ = source_->start(why_not);
    if (!collecting_) without_source = source_->name() + " unavailable: " + why_not;
  } else {
    without_source = "no GPU activity source on this device or build";
  }
  if (!without_source.empty()) {
    source_message_ = without_source + "; CPU range timings only";
    operator_message_ = without_source + "; operators without kernels";
  }
  if (options_.operators) {
    // On the ranges' clock, so that calls, ranges and kernels line up; tagging CUDA calls only
    // where a source collects them.
    operators_ = std::make_unique<OperatorRecorder>([recorder = recorder_.get()] { return recorder->now(); },
                                                    options_.operator_recording,
                                                    collecting_ ? source_.get() : nullptr);
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
  // Operator calls, then ranges, then activity: every call ran inside ranges pushed before it,
  // and every API call in the batch inside ranges pushed before it.
  OperatorCallBatch calls = operators_ ? operators_->drain() : OperatorCallBatch();
  auto ranges = recorder_->drain();
  ActivityBatch batch = collecting_ ? source_->take() : ActivityBatch();
  std::lock_guard<std::mutex> lock(mutex_);
  builder_.add_ranges(ranges);
  builder_.add_activity(batch);
  if (operators_) {
    operator_builder_.add_ranges(ranges);
    operator_builder_.add_calls(calls);
    operator_builder_.add_activity(batch);
  }
  if (!batch.error.empty() && batch_error_.empty()) batch_error_ = batch.error;
  if (!batch.error.empty() && source_message_.empty()) source_message_ = batch.error;
  keep_for_trace(ranges, batch, calls);
}

void KernelProfiler::keep_for_trace(const std::vector<RangeRecord>& ranges, const ActivityBatch& batch,
                                    const OperatorCallBatch& calls) {
  for (const auto& range : ranges) {
    if (range.end_ns == 0) continue;  // reported again once closed
    trace_ranges_.push_back(range);
  }
  auto append = [](auto& into, const auto& from) { into.insert(into.end(), from.begin(), from.end()); };
  append(trace_activity_.kernels, batch.kernels);
  append(trace_activity_.memory, batch.memory);
  append(trace_activity_.api, batch.api);
  append(trace_activity_.correlations, batch.correlations);
  append(trace_calls_, calls.calls);
  append(trace_call_strings_, calls.strings);
  // Keep the latest records: drop the oldest half of whatever kind overflows.
  auto trim = [this](auto& records) {
    if (records.size() <= options_.trace_record_limit) return;
    records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(records.size() / 2));
    trace_truncated_ = true;
  };
  trim(trace_activity_.kernels);
  trim(trace_activity_.memory);
  trim(trace_activity_.api);
  trim(trace_activity_.correlations);
  if (trace_ranges_.size() > options_.trace_record_limit) {
    trace_ranges_.erase(trace_ranges_.begin(), trace_ranges_.begin() + trace_ranges_.size() / 2);
    trace_truncated_ = true;
  }
  if (trace_calls_.size() > options_.trace_record_limit) {
    trace_calls_.erase(trace_calls_.begin(), trace_calls_.begin() + trace_calls_.size() / 2);
    trace_truncated_ = true;
  }
}

KernelProfile KernelProfiler::snapshot(bool final) {
  std::lock_guard<std::mutex> lock(mutex_);
  KernelProfile profile = builder_.build(final);
  profile.source_message = source_message_;
  if (final && operators_) {
    final_operators_ = operator_builder_.build(true);
    std::string message = operator_message_.empty() ? batch_error_ : operator_message_;
    const std::string& own = final_operators_.source_message;
    final_operators_.source_message = message + (!message.empty() && !own.empty() ? "; " : "") + own;
  }
  return profile;
}

OperatorProfile KernelProfiler::operator_profile() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return final_operators_;
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
  window.operator_calls.assign(trace_calls_.begin(), trace_calls_.end());
  window.operator_strings = trace_call_strings_;
  window.truncated = trace_truncated_;
  return window;
}

}  // namespace stepscope::profiling
