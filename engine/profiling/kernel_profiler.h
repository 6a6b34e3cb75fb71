// Runs a kernel profile: installs the range recorder, drives the activity source, and on a
// worker thread of its own folds records into summaries, delivering a fresh snapshot to
// subscribers at every interval. The training thread only marks ranges.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "profiling/activity_source.h"
#include "profiling/kernel_summary_builder.h"
#include "profiling/range_recorder.h"
#include "profiling/trace_window.h"

namespace stepscope::profiling {

struct ProfilerOptions {
  int publish_interval_ms = 250;
  bool include_warmup = false;
  size_t trace_record_limit = 500000;  // raw records kept for the trace export (the latest)
};

class KernelProfiler {
 public:
  using Subscriber = std::function<void(const KernelProfile&)>;

  // `source` may be null (CPU device or CPU build): only CPU range timings are reported.
  KernelProfiler(std::unique_ptr<ActivitySource> source, ProfilerOptions options = {});
  ~KernelProfiler();
  KernelProfiler(const KernelProfiler&) = delete;
  KernelProfiler& operator=(const KernelProfiler&) = delete;

  // Subscribers are called on the profiler's worker thread.
  void subscribe(Subscriber subscriber);
  void start();
  void begin_step(int step, bool warmup);
  // Stops collecting and returns the final profile.
  KernelProfile finish();
  TraceWindow trace() const;

 private:
  void run_worker();
  void ingest();
  void keep_for_trace(const std::vector<RangeRecord>& ranges, const ActivityBatch& batch);
  KernelProfile snapshot(bool final);

  std::unique_ptr<ActivitySource> source_;
  ProfilerOptions options_;
  std::unique_ptr<RangeRecorder> recorder_;
  KernelSummaryBuilder builder_;
  std::string source_message_;
  bool collecting_ = false;

  mutable std::mutex mutex_;  // guards builder_, trace_, subscribers_
  std::vector<Subscriber> subscribers_;
  std::deque<RangeRecord> trace_ranges_;
  ActivityBatch trace_activity_;
  bool trace_truncated_ = false;

  std::thread worker_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace stepscope::profiling
