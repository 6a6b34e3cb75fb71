// The overlap picture's recorder and trace. With kernel records (a synthetic source standing in
// for CUPTI), NCCL kernels go to the communication lane and the others to the compute lane named
// after the phase they started in; kernels outside the step are left out. The trace gives each
// rank its own process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "experiments/ddp/step_timeline_recorder.h"
#include "io/timeline_trace_export.h"

using namespace stepscope;

namespace {

// A clock the test moves, and kernels it places on it.
class ScriptedSource final : public profiling::ActivitySource {
 public:
  explicit ScriptedSource(int64_t* now) : now_(now) {}
  std::string name() const override { return "scripted"; }
  bool start(std::string&) override { return true; }
  void stop() override {}
  void flush_completed() override {}
  profiling::ActivityBatch take() override { return std::exchange(batch, profiling::ActivityBatch()); }
  int64_t now_ns() const override { return *now_; }
  void kernel(const char* name, int64_t start, int64_t end) {
    profiling::KernelRecord k;
    k.name = name;
    k.start_ns = start;
    k.end_ns = end;
    batch.kernels.push_back(k);
  }
  profiling::ActivityBatch batch;

 private:
  int64_t* now_;
};

class RefusingSource final : public profiling::ActivitySource {
 public:
  std::string name() const override { return "refusing"; }
  bool start(std::string& why_not) override {
    why_not = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    return false;
  }
  void stop() override {}
  void flush_completed() override {}
  profiling::ActivityBatch take() override { return {}; }
  int64_t now_ns() const override { return 0; }
};

}  // namespace

TEST(StepTimeline, KernelsGoToTheirLaneAndPhase) {
  int64_t now = 1'000'000;
  auto owned = std::make_unique<ScriptedSource>(&now);
  ScriptedSource& source = *owned;
  StepTimelineRecorder recorder(std::move(owned));
  ASSERT_TRUE(recorder.records_kernels());
  source.kernel("before_the_step", 100, 200);
  recorder.start();                                   // t = 1 ms
  source.kernel("ampere_sgemm_128x64_tn", 1'100'000, 1'400'000);
  now = 2'000'000;
  recorder.phase_done("forward");  // forward ends at 1 ms from the start
  source.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2'100'000, 3'600'000);
  source.kernel("ampere_sgemm_64x64_nt", 2'200'000, 2'900'000);
  now = 3'000'000;
  recorder.phase_done("backward");
  now = 4'000'000;
  recorder.phase_done("optimizer");
  recorder.add_collective("ignored with kernels", {}, {});
  const auto spans = recorder.finish();
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].lane, TimelineLane::compute);
  EXPECT_EQ(spans[0].name, "forward: ampere_sgemm_128x64_tn");
  EXPECT_DOUBLE_EQ(spans[0].start_ms, 0.1);
  EXPECT_DOUBLE_EQ(spans[0].end_ms, 0.4);
  EXPECT_EQ(spans[1].lane, TimelineLane::communication);
  EXPECT_EQ(spans[1].name.rfind("backward: ncclDevKernel_AllReduce", 0), 0u) << spans[1].name;
  EXPECT_DOUBLE_EQ(spans[1].end_ms, 2.6);
  EXPECT_EQ(spans[2].name, "backward: ampere_sgemm_64x64_nt");
}

TEST(StepTimeline, WithoutKernelsPhasesAndCollectivesFromTheHost) {
  StepTimelineRecorder recorder(nullptr);
  EXPECT_FALSE(recorder.records_kernels());
  recorder.start();
  const auto t0 = StepTimelineRecorder::HostClock::now();
  recorder.phase_done("forward");
  recorder.phase_done("backward");
  recorder.add_collective("all_reduce 0 (1.0 KiB)", t0, t0 + std::chrono::milliseconds(3));
  recorder.phase_done("optimizer");
  const auto spans = recorder.finish();
  ASSERT_EQ(spans.size(), 4u);
  int compute = 0;
  for (const auto& s : spans) {
    if (s.lane == TimelineLane::compute) ++compute;
    else EXPECT_NEAR(s.end_ms - s.start_ms, 3.0, 1e-9);
    EXPECT_LE(s.start_ms, s.end_ms);
  }
  EXPECT_EQ(compute, 3);
}

TEST(StepTimeline, ASourceThatCannotStartLeavesPhasesAndSaysWhy) {
  StepTimelineRecorder recorder(std::make_unique<RefusingSource>());
  EXPECT_FALSE(recorder.records_kernels());
  EXPECT_NE(recorder.note().find("INSUFFICIENT_PRIVILEGES"), std::string::npos);
}

TEST(TimelineTrace, AProcessPerRankAndRowsOneAfterAnother) {
  DdpConfig naive, flat;
  flat.variant = distributed::DdpVariant::flat;
  std::vector<TimelineRow> rows{{naive, 0, 1, {TimelineLane::compute, "forward", 0, 2}},
                                {naive, 1, 1, {TimelineLane::communication, "all_reduce 0", 1, 4}},
                                {flat, 0, 1, {TimelineLane::compute, "forward", 0, 1}}};
  std::ostringstream out;
  write_timeline_trace(out, rows);
  const auto trace = nlohmann::json::parse(out.str());
  std::set<std::string> processes;
  double flat_forward_ts = -1;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("name") == "process_name") processes.insert(e.at("args").at("name").get<std::string>());
    if (e.at("ph") == "X" && e.at("cat") == "compute" && e.at("dur").get<double>() == 1000.0) {
      flat_forward_ts = e.at("ts").get<double>();
    }
  }
  EXPECT_EQ(processes, (std::set<std::string>{"rank 0", "rank 1"}));
  // The naive row lasts 4 ms (rank 1's end); the flat row starts 1 ms after it.
  EXPECT_DOUBLE_EQ(flat_forward_ts, 5000.0);
}
