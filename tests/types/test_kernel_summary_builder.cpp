// Attribution and summaries from synthetic CUPTI-like records: the logic above the
// activity source, checked by hand-computed expectations.
#include <gtest/gtest.h>

#include <cmath>

#include "profiling/kernel_summary_builder.h"

namespace stepscope::profiling {
namespace {

constexpr uint32_t kMain = 1, kAutograd = 99;

RangeRecord range(uint64_t id, uint64_t parent, const char* name, int64_t start, int64_t end, int step, bool warmup) {
  RangeRecord r;
  r.id = id;
  r.parent_id = parent;
  r.name = name;
  r.thread_id = kMain;
  r.start_ns = start;
  r.end_ns = end;
  r.step = step;
  r.warmup = warmup;
  return r;
}

ApiRecord launch(uint32_t correlation, int64_t at, uint32_t thread = kMain) {
  return ApiRecord{"cudaLaunchKernel", at, at + 2, thread, correlation, false};
}

KernelRecord kernel(const char* name, uint32_t correlation, int64_t start, int64_t duration) {
  KernelRecord k;
  k.name = name;
  k.correlation_id = correlation;
  k.start_ns = start;
  k.end_ns = start + duration;
  return k;
}


const KernelStats* find_kernel(const RangeKernelSummary& r, const std::string& short_name) {
  for (const auto& k : r.kernels) {
    if (k.short_name == short_name) return &k;
  }
  return nullptr;
}

class KernelSummaryBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Step 0 is a warm-up step; step 1 is measured: forward (attention scores, softmax), backward.
    builder.add_ranges({range(1, 0, "step", 0, 100, 0, true), range(2, 1, "forward", 0, 50, 0, true),
                        range(3, 0, "step", 200, 400, 1, false), range(4, 3, "forward", 200, 300, 1, false),
                        range(5, 4, "attention scores", 210, 220, 1, false), range(6, 4, "softmax", 220, 230, 1, false),
                        range(7, 3, "backward", 300, 380, 1, false)});
    ActivityBatch batch;
    batch.api = {launch(1, 10), launch(2, 212), launch(3, 225), launch(4, 310, kAutograd), launch(5, 500),
                 launch(7, 320)};
    batch.kernels = {kernel("ampere_sgemm_128x64_tn", 1, 1000, 5),   // warm-up: excluded
                     kernel("ampere_sgemm_128x64_tn", 2, 1010, 10),  // attention scores
                     kernel("softmax_warp_forward", 3, 1020, 4),     // softmax
                     kernel("vectorized_elementwise_kernel", 4, 1030, 6),  // backward, from autograd's thread
                     kernel("ampere_sgemm_128x64_tn", 5, 1040, 8),   // launched outside every range
                     kernel("ampere_sgemm_128x64_tn", 6, 1036, 20)};  // its launch record comes later
    batch.memory = {MemoryRecord{MemoryOperation::set, 64, 1026, 1028, 0, 7, 7}};
    builder.add_activity(batch);
    ActivityBatch later;
    later.api = {launch(6, 226)};  // inside softmax
    builder.add_activity(later);
  }
  KernelSummaryBuilder builder;
};

TEST_F(KernelSummaryBuilderTest, AttributesKernelsToTheInnermostRangeAndItsAncestors) {
  const auto p = builder.build(true);
  EXPECT_EQ(p.measured_steps, 1);
  EXPECT_TRUE(p.gpu_activity_recorded);
  EXPECT_EQ(p.unattributed_kernels, 1u);

  const auto* window = find_range(p, kMeasuredWindow);
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(p.ranges.front().range, kMeasuredWindow);
  EXPECT_EQ(window->gpu_time_ns, 10 + 4 + 6 + 20 + 2);
  const auto* gemm = find_kernel(*window, "ampere_sgemm_128x64_tn");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->instances, 2);
  EXPECT_EQ(gemm->total_ns, 30);
  EXPECT_EQ(gemm->min_ns, 10);
  EXPECT_EQ(gemm->max_ns, 20);
  EXPECT_DOUBLE_EQ(gemm->mean_ns, 15.0);
  EXPECT_DOUBLE_EQ(gemm->median_ns, 15.0);
  EXPECT_NEAR(gemm->stddev_ns, std::sqrt(50.0), 1e-9);
  EXPECT_NEAR(gemm->time_percent, 100.0 * 30 / 42, 1e-9);
  EXPECT_DOUBLE_EQ(gemm->instances_per_step, 2.0);
  EXPECT_EQ(window->kernels.front().short_name, "ampere_sgemm_128x64_tn") << "sorted by total time";

  const auto* scores = find_range(p, "attention scores");
  ASSERT_NE(scores, nullptr);
  ASSERT_EQ(scores->kernels.size(), 1u);
  EXPECT_EQ(scores->kernels[0].total_ns, 10);

  const auto* softmax = find_range(p, "softmax");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(softmax->gpu_time_ns, 4 + 20);

  const auto* forward = find_range(p, "forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->gpu_time_ns, 10 + 4 + 20);

  const auto* backward = find_range(p, "backward");
  ASSERT_NE(backward, nullptr) << "launches from another thread fall back to the step thread's ranges";
  EXPECT_EQ(backward->gpu_time_ns, 6 + 2);
  ASSERT_NE(find_kernel(*backward, "[CUDA memset]"), nullptr);
}

TEST_F(KernelSummaryBuilderTest, CategoriesRollUpTheRangesTime) {
  const auto p = builder.build(true);
  const auto* window = find_range(p, kMeasuredWindow);
  ASSERT_NE(window, nullptr);
  double percent = 0;
  int64_t total = 0;
  for (const auto& c : window->categories) {
    percent += c.percent;
    total += c.total_ns;
  }
  EXPECT_NEAR(percent, 100.0, 1e-9);
  EXPECT_EQ(total, window->gpu_time_ns);
  EXPECT_EQ(window->categories.front().category, KernelCategory::matrix_multiply);
  EXPECT_EQ(window->categories.front().total_ns, 30);
}

TEST_F(KernelSummaryBuilderTest, StepUsageIsTheUnionOfIntervals) {
  const auto p = builder.build(true);
  ASSERT_EQ(p.steps.size(), 1u);
  const auto& s = p.steps[0];
  EXPECT_EQ(s.step, 1);
  // [1010,1020) [1020,1024) [1026,1028) [1030,1036) [1036,1056): busy 10+4+2+6+20, span 46.
  EXPECT_EQ(s.span_ns, 46);
  EXPECT_EQ(s.busy_ns, 42);
  EXPECT_EQ(s.idle_ns, 4);
  EXPECT_EQ(s.kernels, 5);
  EXPECT_FALSE(s.launch_bound);
}

TEST_F(KernelSummaryBuilderTest, CpuRangeTimesCoverMeasuredStepsOnly) {
  const auto p = builder.build(true);
  for (const auto& r : p.cpu_ranges) {
    if (r.range == "forward") {
      EXPECT_EQ(r.instances, 1);
      EXPECT_EQ(r.total_ns, 100);
    }
    if (r.range == "step") EXPECT_EQ(r.total_ns, 200);
  }
}

// A range is timed under the name of the range around it, also when it closes in a batch
// that hands over its parent later (a recorder lists closed ranges before the open ones).
TEST(KernelSummaryBuilder, CpuRangeTimesKeepTheirParentsName) {
  KernelSummaryBuilder builder;
  builder.add_ranges({range(2, 1, "softmax", 20, 30, 0, false), range(1, 0, "forward", 0, 0, 0, false)});
  builder.add_ranges({range(1, 0, "forward", 0, 100, 0, false), range(3, 0, "softmax", 150, 160, 0, false)});
  const auto p = builder.build(true);
  ASSERT_EQ(p.cpu_ranges.size(), 3u);
  int64_t nested = -1, top = -1;
  for (const auto& r : p.cpu_ranges) {
    if (r.range == "softmax" && r.parent == "forward") nested = r.total_ns;
    if (r.range == "softmax" && r.parent.empty()) top = r.total_ns;
    if (r.range == "forward") EXPECT_EQ(r.parent, "");
  }
  EXPECT_EQ(nested, 10);
  EXPECT_EQ(top, 10);
}

TEST(KernelSummaryBuilder, WarmupIsIncludedOnRequestAndPendingWaitsForItsLaunch) {
  KernelSummaryBuilder builder(SummaryOptions{true});
  builder.add_ranges({range(1, 0, "step", 0, 100, 0, true)});
  ActivityBatch batch;
  batch.kernels = {kernel("k", 1, 10, 5)};
  builder.add_activity(batch);
  EXPECT_FALSE(builder.build(false).gpu_activity_recorded) << "no launch record yet";
  ActivityBatch launch_batch;
  launch_batch.api = {launch(1, 50)};
  builder.add_activity(launch_batch);
  const auto p = builder.build(false);
  EXPECT_TRUE(p.gpu_activity_recorded);
  EXPECT_EQ(p.measured_steps, 1);
}

TEST(KernelSummaryBuilder, ActivityWithoutLaunchRecordIsUnattributedAtTheEnd) {
  KernelSummaryBuilder builder;
  ActivityBatch batch;
  batch.kernels = {kernel("k", 42, 10, 5)};
  batch.dropped_records = 3;
  builder.add_activity(batch);
  const auto p = builder.build(true);
  EXPECT_EQ(p.unattributed_kernels, 1u);
  EXPECT_EQ(p.dropped_records, 3u);
  EXPECT_FALSE(p.gpu_activity_recorded);
}

}  // namespace
}  // namespace stepscope::profiling

namespace stepscope::profiling {
namespace {

// A record CUPTI could not time (both timestamps 0) would make a step's GPU span reach back
// to time 0 and its duration count as 0: it is left out and counted instead.
TEST(KernelSummaryBuilder, RecordsWithoutTimestampsAreLeftOutAndCounted) {
  KernelSummaryBuilder builder;
  builder.add_ranges({range(1, 0, "step", 100, 400, 0, false)});
  ActivityBatch batch;
  batch.api = {launch(1, 110), launch(2, 120), launch(3, 130)};
  batch.kernels = {kernel("k", 1, 1000, 50), kernel("k", 2, 0, 0), kernel("k", 3, 1100, 50)};
  MemoryRecord untimed_copy;
  untimed_copy.operation = MemoryOperation::set;
  untimed_copy.correlation_id = 3;
  batch.memory = {untimed_copy};
  builder.add_activity(batch);
  const auto p = builder.build(true);
  EXPECT_EQ(p.untimed_records, 2u);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].span_ns, 150);
  EXPECT_EQ(p.steps[0].busy_ns, 100);
  EXPECT_EQ(p.steps[0].kernels, 2);
  const auto* window = find_range(p, "measured window");
  ASSERT_NE(window, nullptr);
  ASSERT_EQ(window->kernels.size(), 1u);
  EXPECT_EQ(window->kernels[0].instances, 2);
  EXPECT_EQ(window->kernels[0].min_ns, 50);
}

}  // namespace
}  // namespace stepscope::profiling
