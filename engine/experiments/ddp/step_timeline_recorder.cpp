#include "experiments/ddp/step_timeline_recorder.h"

#include <algorithm>

#include "profiling/kernel_category.h"
#include "profiling/kernel_names.h"
#include "profiling/step_ranges.h"

namespace stepscope {

namespace {

int64_t host_ns(StepTimelineRecorder::HostClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

double ms(int64_t ns) { return static_cast<double>(ns) * 1e-6; }

}  // namespace

StepTimelineRecorder::StepTimelineRecorder(std::unique_ptr<profiling::ActivitySource> kernels)
    : source_(std::move(kernels)) {
  if (!source_) return;
  std::string why_not;
  if (!source_->start(why_not)) {
    note_ = "no kernel records (" + why_not + "): phases only";
    source_.reset();
  }
}

StepTimelineRecorder::~StepTimelineRecorder() {
  if (source_) source_->stop();
}

int64_t StepTimelineRecorder::source_now() const { return source_ ? source_->now_ns() : 0; }

void StepTimelineRecorder::start() {
  phases_.clear();
  collectives_.clear();
  start_host_ns_ = host_ns(HostClock::now());
  start_source_ns_ = source_now();
}

void StepTimelineRecorder::phase_done(const std::string& name) {
  phases_.push_back({name, host_ns(HostClock::now()), source_now()});
}

void StepTimelineRecorder::add_collective(const std::string& name, HostClock::time_point start,
                                          HostClock::time_point done) {
  if (source_) return;
  collectives_.push_back(
      {TimelineLane::communication, name, ms(host_ns(start) - start_host_ns_), ms(host_ns(done) - start_host_ns_)});
}

std::vector<TimelineSpan> StepTimelineRecorder::finish() {
  std::vector<TimelineSpan> spans;
  if (!source_) {
    int64_t from = start_host_ns_;
    for (const auto& p : phases_) {
      spans.push_back({TimelineLane::compute, p.name, ms(from - start_host_ns_), ms(p.end_host_ns - start_host_ns_)});
      from = p.end_host_ns;
    }
    spans.insert(spans.end(), collectives_.begin(), collectives_.end());
  } else {
    source_->stop();
    const auto batch = source_->take();
    source_.reset();
    const int64_t end = phases_.empty() ? start_source_ns_ : phases_.back().end_source_ns;
    for (const auto& k : batch.kernels) {
      if (k.start_ns < start_source_ns_ || k.start_ns > end) continue;  // outside this step
      const std::string demangled = profiling::demangle_kernel_name(k.name);
      const bool communication = profiling::classify_kernel(demangled) == profiling::KernelCategory::communication;
      // The phase the kernel started in: the first whose end lies after its start.
      const auto phase = std::find_if(phases_.begin(), phases_.end(),
                                      [&](const Phase& p) { return k.start_ns <= p.end_source_ns; });
      const std::string prefix =
          phase == phases_.end() ? std::string() : phase->name + profiling::step_ranges::kPhaseSeparator;
      spans.push_back({communication ? TimelineLane::communication : TimelineLane::compute,
                       prefix + profiling::short_kernel_name(demangled), ms(k.start_ns - start_source_ns_),
                       ms(k.end_ns - start_source_ns_)});
    }
  }
  std::stable_sort(spans.begin(), spans.end(),
                   [](const TimelineSpan& a, const TimelineSpan& b) { return a.start_ms < b.start_ms; });
  return spans;
}

}  // namespace stepscope
