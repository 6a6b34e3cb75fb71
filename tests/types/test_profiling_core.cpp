// Duration statistics, the range recorder and the profiler's worker, on the CPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "profiling/duration_stats.h"
#include "profiling/kernel_profiler.h"
#include "profiling/range_recorder.h"

namespace stepscope::profiling {
namespace {

TEST(DurationStats, ExactStatisticsForSmallSamples) {
  DurationStats stats;
  for (int64_t v : {4, 1, 3, 2}) stats.add(v);
  EXPECT_EQ(stats.count(), 4);
  EXPECT_EQ(stats.total(), 10);
  EXPECT_EQ(stats.min(), 1);
  EXPECT_EQ(stats.max(), 4);
  EXPECT_DOUBLE_EQ(stats.mean(), 2.5);
  EXPECT_DOUBLE_EQ(stats.median(), 2.5);
  EXPECT_NEAR(stats.stddev(), std::sqrt(5.0 / 3.0), 1e-12);
}

TEST(DurationStats, MemoryStaysBoundedAndTheMedianClose) {
  DurationStats stats(1000);
  for (int64_t i = 1; i <= 100000; ++i) stats.add(i);
  EXPECT_EQ(stats.count(), 100000);
  EXPECT_EQ(stats.total(), int64_t{100000} * 100001 / 2);
  EXPECT_NEAR(stats.median(), 50000.0, 5000.0);  // from a uniform sample of 1000
}

TEST(RangeRecorder, NestsPerThreadAndDrainsClosedRanges) {
  int64_t tick = 0;
  RangeRecorder recorder([&tick] { return ++tick; });
  recorder.set_step(3, false);
  const auto outer = recorder.push("step");
  const auto inner = recorder.push("forward");
  recorder.pop(inner);
  auto drained = recorder.drain();
  ASSERT_EQ(drained.size(), 2u);  // the closed "forward", then the open "step"
  EXPECT_EQ(drained[0].name, "forward");
  EXPECT_EQ(drained[0].parent_id, outer);
  EXPECT_EQ(drained[0].step, 3);
  EXPECT_EQ(drained[0].start_ns, 2);
  EXPECT_EQ(drained[0].end_ns, 3);
  EXPECT_EQ(drained[1].end_ns, 0);
  recorder.pop(outer);
  drained = recorder.drain();
  ASSERT_EQ(drained.size(), 1u);
  EXPECT_EQ(drained[0].name, "step");
  EXPECT_TRUE(recorder.drain().empty());
}

TEST(ScopedRange, ReportsToTheActiveRecorderOnly) {
  RangeRecorder recorder;
  { ScopedRange ignored("before"); }
  set_active_range_recorder(&recorder);
  { ScopedRange counted("during"); }
  set_active_range_recorder(nullptr);
  const auto drained = recorder.drain();
  ASSERT_EQ(drained.size(), 1u);
  EXPECT_EQ(drained[0].name, "during");
}

// Emits a launch and its kernel whenever the test says so, on a counter clock.
class FakeSource final : public ActivitySource {
 public:
  std::string name() const override { return "fake"; }
  bool start(std::string&) override { return true; }
  void stop() override {}
  void flush_completed() override {}
  ActivityBatch take() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(batch_, ActivityBatch());
  }
  int64_t now_ns() const override { return clock_.fetch_add(10); }
  void launch(const char* kernel_name, int64_t duration) {
    const int64_t at = now_ns();
    std::lock_guard<std::mutex> lock(mutex_);
    const uint32_t correlation = ++correlation_;
    batch_.api.push_back({"cudaLaunchKernel", at, at + 1, 12345, correlation, false});
    KernelRecord k;
    k.name = kernel_name;
    k.start_ns = at + 5;
    k.end_ns = at + 5 + duration;
    k.correlation_id = correlation;
    batch_.kernels.push_back(k);
  }

 private:
  mutable std::atomic<int64_t> clock_{1000};
  std::mutex mutex_;
  ActivityBatch batch_;
  uint32_t correlation_ = 0;
};

TEST(KernelProfiler, PublishesLiveSnapshotsAndAFinalProfile) {
  auto source = std::make_unique<FakeSource>();
  FakeSource* fake = source.get();
  KernelProfiler profiler(std::move(source), ProfilerOptions{10});
  std::atomic<int> snapshots{0};
  profiler.subscribe([&](const KernelProfile&) { ++snapshots; });
  profiler.start();
  for (int step = 0; step < 3; ++step) {
    profiler.begin_step(step, step == 0);
    ScopedRange s("step");
    ScopedRange f("forward");
    fake->launch("ampere_sgemm_128x64_tn", 7);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  const auto profile = profiler.finish();
  EXPECT_GE(snapshots.load(), 1);
  EXPECT_EQ(profile.measured_steps, 2);
  ASSERT_FALSE(profile.ranges.empty());
  EXPECT_EQ(profile.ranges.front().kernels.at(0).instances, 2) << "the warm-up step is excluded";
  EXPECT_EQ(profile.ranges.front().kernels.at(0).total_ns, 14);
  EXPECT_EQ(profiler.trace().activity.kernels.size(), 3u);
  EXPECT_EQ(active_range_recorder(), nullptr);
}

TEST(KernelProfiler, WithoutASourceItSaysSoAndKeepsCpuTimings) {
  KernelProfiler profiler(nullptr);
  profiler.start();
  profiler.begin_step(0, false);
  { ScopedRange s("step"); }
  const auto profile = profiler.finish();
  EXPECT_FALSE(profile.gpu_activity_recorded);
  EXPECT_NE(profile.source_message.find("CPU range timings only"), std::string::npos);
  ASSERT_EQ(profile.cpu_ranges.size(), 1u);
  EXPECT_EQ(profile.cpu_ranges[0].range, "step");
}

}  // namespace
}  // namespace stepscope::profiling
