// Records one DDP step for the overlap picture. With a GPU activity source (CUPTI), every
// kernel of the step becomes a span, NCCL's on the communication lane and the others on the
// compute lane named after the phase they started in ("backward: sm90_xmma_gemm..."); without
// one (the CPU), the phases themselves are the compute spans and the collectives' host spans
// the communication lane. Times: ms from the step's start. No LibTorch here.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "experiments/ddp/ddp_timeline.h"
#include "profiling/activity_source.h"

namespace stepscope {

class StepTimelineRecorder {
 public:
  using HostClock = std::chrono::steady_clock;

  // `kernels`: a source not yet started, or null for host spans only. A source that cannot
  // start leaves host spans, with its reason in note().
  explicit StepTimelineRecorder(std::unique_ptr<profiling::ActivitySource> kernels);
  ~StepTimelineRecorder();

  bool records_kernels() const { return source_ != nullptr; }
  const std::string& note() const { return note_; }

  void start();                          // the step begins now (after the device is idle)
  void phase_done(const std::string& name);  // the compute phase `name` ended now (device idle)
  // A collective's host-side span (CPU backends; ignored when kernels are recorded).
  void add_collective(const std::string& name, HostClock::time_point start, HostClock::time_point done);
  // Stops the source and returns the spans in start order.
  std::vector<TimelineSpan> finish();

 private:
  struct Phase {
    std::string name;
    int64_t end_host_ns, end_source_ns;
  };
  int64_t source_now() const;

  std::unique_ptr<profiling::ActivitySource> source_;
  std::string note_;
  int64_t start_host_ns_ = 0, start_source_ns_ = 0;
  std::vector<Phase> phases_;
  std::vector<TimelineSpan> collectives_;
};

}  // namespace stepscope
