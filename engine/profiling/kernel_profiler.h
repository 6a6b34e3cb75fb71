// Runs a kernel profile: installs the range recorder, drives the activity source, and on a
// worker thread of its own folds records into summaries, delivering a fresh snapshot to
// subscribers at every interval. The training thread only marks ranges. With operators, it
// also keeps an operator recorder (which the compat layer's RecordFunction callbacks feed)
// and folds its calls, with the same ranges and activity, into an operator profile.
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
#include "profiling/operator_recorder.h"
#include "profiling/operator_summary_builder.h"
#include "profiling/range_recorder.h"
#include "profiling/trace_window.h"

namespace stepscope::profiling {

struct ProfilerOptions {
  int publish_interval_ms = 250;
  bool include_warmup = false;
  size_t trace_record_limit = 500000;  // raw records kept for the trace export (the latest)
  bool operators = false;              // keep an operator recorder and an operator profile
  OperatorRecorderOptions operator_recording = {};
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
  // With options.operators: what the operator callbacks report to, from start() on (remove
  // them before finish()); null before start() and without options.operators. After
  // finish(), the final operator profile.
  OperatorRecorder* operator_recorder() { return operators_.get(); }
  OperatorProfile operator_profile() const;

 private:
  void run_worker();
  void ingest();
  void keep_for_trace(const std::vector<RangeRecord>& ranges, const ActivityBatch& batch,
                      const OperatorCallBatch& calls);
  KernelProfile snapshot(bool final);

  std::unique_ptr<ActivitySource> source_;
  ProfilerOptions options_;
  std::unique_ptr<RangeRecorder> recorder_;
  KernelSummaryBuilder builder_;
  std::unique_ptr<OperatorRecorder> operators_;
  OperatorSummaryBuilder operator_builder_;
  OperatorProfile final_operators_;
  std::string source_message_;
  std::string operator_message_;  // why the operator profile has no kernels
  std::string batch_error_;       // the first problem the source reported
  bool collecting_ = false;

  mutable std::mutex mutex_;  // guards builder_, trace_, subscribers_
  std::vector<Subscriber> subscribers_;
  std::deque<RangeRecord> trace_ranges_;
  ActivityBatch trace_activity_;
  std::deque<OperatorCallRecord> trace_calls_;
  std::vector<std::string> trace_call_strings_;
  bool trace_truncated_ = false;

  std::thread worker_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace stepscope::profiling
