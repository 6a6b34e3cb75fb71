// The operator summaries from synthetic records: nesting (self time), shape grouping, range
// paths (an autograd-thread call placed in the step thread's range), kernel attribution
// through external correlation records (the innermost operator gets the kernel, its callers
// the time in total GPU; kernels outside operators; outside ranges) and the warm-up left out.
// Every expectation is computed by hand from the records below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "profiling/operator_summary_builder.h"

namespace stepscope::profiling {
namespace {

constexpr uint32_t kMain = 1, kAutograd = 7, kCuptiThread = 5000;  // CUPTI numbers threads its own way

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

// String ids as a recorder hands them over: 0 is "", then these in order.
enum : uint32_t { kLinear = 1, kMatmul, kMm, kShape4x8, kShape2x8, kMmBackward, kCopy, kTo, kShape8 };
const std::vector<std::string> kStrings = {"",           "aten::linear", "aten::matmul",     "aten::mm",
                                           "[[4, 8], [8, 8]]", "[[2, 8], [8, 8]]", "MmBackward0", "aten::copy_",
                                           "aten::to",   "[[8], [8]]"};

OperatorCallRecord call(uint64_t id, uint64_t parent, uint64_t range_id, uint32_t name, uint32_t shapes, int64_t start,
                        int64_t end, int64_t nested, uint32_t thread = kMain) {
  OperatorCallRecord c;
  c.id = id;
  c.parent_id = parent;
  c.range_id = range_id;
  c.name = name;
  c.input_shapes = shapes;
  c.thread_id = thread;
  c.start_ns = start;
  c.end_ns = end;
  c.nested_ns = nested;
  return c;
}

ApiRecord launch(uint32_t correlation, int64_t at) {
  return ApiRecord{"cudaLaunchKernel", at, at + 2, kCuptiThread, correlation, false};
}

KernelRecord kernel(const char* name, uint32_t correlation, int64_t start, int64_t duration) {
  KernelRecord k;
  k.name = name;
  k.correlation_id = correlation;
  k.start_ns = start;
  k.end_ns = start + duration;
  return k;
}

const OperatorStats* find(const OperatorProfile& p, const std::vector<std::string>& path, const std::string& name,
                          const std::string& shapes) {
  for (const auto& op : p.operators) {
    if (op.range_path == path && op.name == name && op.input_shapes == shapes) return &op;
  }
  return nullptr;
}

class OperatorSummaryBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Step 0 warms up; step 1 is measured: forward (attention inside), backward.
    builder.add_ranges({range(1, 0, "step", 0, 100, 0, true), range(2, 1, "forward", 0, 50, 0, true),
                        range(3, 0, "step", 200, 400, 1, false), range(4, 3, "forward", 200, 300, 1, false),
                        range(5, 4, "attention", 210, 260, 1, false), range(6, 3, "backward", 300, 380, 1, false)});
    OperatorCallBatch first;
    first.strings = kStrings;
    first.calls = {
        call(100, 0, 2, kMm, kShape4x8, 10, 20, 0),             // warm-up: left out
        call(3, 2, 5, kMm, kShape4x8, 215, 233, 0),             // linear > matmul > mm, in attention
        call(2, 1, 5, kMatmul, 0, 214, 236, 18),
        call(1, 0, 5, kLinear, 0, 212, 240, 22),
        call(4, 0, 4, kMm, kShape4x8, 270, 280, 0),             // forward, not attention: a row of its own
        call(5, 0, 4, kMm, kShape2x8, 282, 288, 0),             // other shapes: a row of its own
        call(6, 0, 4, kMm, kShape4x8, 290, 296, 0),             // the same row as call 4
        call(8, 7, 6, kMm, kShape4x8, 312, 337, 0, kAutograd),  // autograd's thread, in "backward"
        call(7, 0, 6, kMmBackward, 0, 310, 340, 25, kAutograd),
        call(9, 10, 6, kCopy, kShape8, 352, 358, 0),            // its caller (10) ends in the next batch
        call(11, 0, 0, kMm, kShape4x8, 150, 160, 0),            // between the steps: outside every range
    };
    builder.add_calls(first);
    ActivityBatch activity;
    activity.correlations = {{11, 3}, {12, 4}, {13, 6}, {14, 8}, {17, 100}, {18, 7}, {19, 9}};
    activity.api = {launch(11, 216), launch(12, 271), launch(13, 291), launch(14, 320), launch(15, 242),
                    launch(16, 150), launch(17, 15), launch(18, 335), launch(19, 353)};
    activity.kernels = {kernel("gemm_a", 11, 1000, 100), kernel("gemm_a", 12, 1200, 40),
                        kernel("gemm_a", 13, 1300, 50),  kernel("gemm_b", 14, 1400, 70),
                        kernel("fused_kernel", 15, 1100, 30),  // outside every operator, inside attention
                        kernel("gemm_a", 16, 1150, 8),         // outside every range
                        kernel("gemm_a", 17, 900, 9),          // the warm-up call's
                        kernel("copy_kernel", 19, 1500, 12)};
    activity.memory = {MemoryRecord{MemoryOperation::set, 64, 1450, 1455, 0, 7, 18}};
    builder.add_activity(activity);
    OperatorCallBatch second;  // strings go on from the first batch's
    second.calls = {call(10, 0, 6, kTo, kShape8, 350, 360, 6)};
    builder.add_calls(second);
  }
  OperatorSummaryBuilder builder;
};

TEST_F(OperatorSummaryBuilderTest, CountsCallsAndSelfTimeOfTheMeasuredStepsOnly) {
  const auto p = builder.build(true);
  EXPECT_EQ(p.measured_steps, 1);
  EXPECT_EQ(p.measured_cpu_ns, 200);
  EXPECT_EQ(p.operator_calls, 10);  // calls 1-10; 100 warms up, 11 is outside every range
  EXPECT_EQ(p.dropped_calls, 0u);
  const std::vector<std::string> attention{"forward", "attention"};
  const auto* linear = find(p, attention, "aten::linear", "");
  const auto* matmul = find(p, attention, "aten::matmul", "");
  const auto* mm = find(p, attention, "aten::mm", "[[4, 8], [8, 8]]");
  ASSERT_TRUE(linear && matmul && mm);
  EXPECT_EQ(linear->calls, 1);
  EXPECT_EQ(linear->total_cpu_ns, 28);
  EXPECT_EQ(linear->self_cpu_ns, 6);   // 28 - matmul's 22
  EXPECT_EQ(matmul->total_cpu_ns, 22);
  EXPECT_EQ(matmul->self_cpu_ns, 4);   // 22 - mm's 18
  EXPECT_EQ(mm->total_cpu_ns, 18);
  EXPECT_EQ(mm->self_cpu_ns, 18);
  EXPECT_EQ(find(p, {"forward"}, "aten::mm", "[[4, 8], [8, 8]]")->calls, 2);  // calls 4 and 6
  EXPECT_EQ(find(p, {"forward"}, "aten::mm", "[[4, 8], [8, 8]]")->total_cpu_ns, 16);
  EXPECT_EQ(find(p, {"forward"}, "aten::mm", "[[2, 8], [8, 8]]")->total_cpu_ns, 6);
  const auto* to = find(p, {"backward"}, "aten::to", "[[8], [8]]");
  ASSERT_NE(to, nullptr);
  EXPECT_EQ(to->self_cpu_ns, 4);
  // The warm-up call (10 ns) and the call between steps are in no row.
  int64_t calls = 0;
  for (const auto& op : p.operators) calls += op.calls;
  EXPECT_EQ(calls, 10);
  // By self CPU time, largest first: backward's mm (25), attention's mm (18), forward's mm (16) ...
  ASSERT_GE(p.operators.size(), 3u);
  EXPECT_EQ(p.operators[0].self_cpu_ns, 25);
  EXPECT_EQ(p.operators[1].self_cpu_ns, 18);
  EXPECT_EQ(p.operators[2].self_cpu_ns, 16);
}

TEST_F(OperatorSummaryBuilderTest, PlacesAutogradThreadCallsInTheStepThreadsRange) {
  const auto p = builder.build(true);
  const auto* node = find(p, {"backward"}, "MmBackward0", "");
  const auto* mm = find(p, {"backward"}, "aten::mm", "[[4, 8], [8, 8]]");
  ASSERT_TRUE(node && mm);
  EXPECT_EQ(node->total_cpu_ns, 30);
  EXPECT_EQ(node->self_cpu_ns, 5);
  EXPECT_EQ(mm->self_cpu_ns, 25);
}

TEST_F(OperatorSummaryBuilderTest, GivesEachKernelToTheInnermostOperatorAndItsTimeToTheCallers) {
  const auto p = builder.build(true);
  EXPECT_TRUE(p.gpu_activity_recorded);
  const std::vector<std::string> attention{"forward", "attention"};
  const auto* mm = find(p, attention, "aten::mm", "[[4, 8], [8, 8]]");
  ASSERT_EQ(mm->kernels.size(), 1u);
  EXPECT_EQ(mm->kernels[0].name, "gemm_a");
  EXPECT_EQ(mm->kernels[0].launches, 1);
  EXPECT_EQ(mm->kernels[0].total_ns, 100);
  EXPECT_EQ(mm->self_gpu_ns, 100);
  EXPECT_EQ(mm->total_gpu_ns, 100);
  for (const char* caller : {"aten::matmul", "aten::linear"}) {
    const auto* op = find(p, attention, caller, "");
    EXPECT_EQ(op->self_gpu_ns, 0) << caller;
    EXPECT_EQ(op->total_gpu_ns, 100) << caller;
    EXPECT_TRUE(op->kernels.empty()) << caller;
  }
  const auto* forward_mm = find(p, {"forward"}, "aten::mm", "[[4, 8], [8, 8]]");
  ASSERT_EQ(forward_mm->kernels.size(), 1u);
  EXPECT_EQ(forward_mm->kernels[0].launches, 2);
  EXPECT_EQ(forward_mm->kernels[0].total_ns, 90);
  EXPECT_EQ(find(p, {"forward"}, "aten::mm", "[[2, 8], [8, 8]]")->total_gpu_ns, 0);
  // Autograd's thread: the node's memset is its own; its mm's kernel counts in its total.
  const auto* node = find(p, {"backward"}, "MmBackward0", "");
  EXPECT_EQ(node->self_gpu_ns, 5);
  EXPECT_EQ(node->total_gpu_ns, 75);
  ASSERT_EQ(node->kernels.size(), 1u);
  EXPECT_EQ(node->kernels[0].name, "[CUDA memset]");
  EXPECT_EQ(find(p, {"backward"}, "aten::mm", "[[4, 8], [8, 8]]")->self_gpu_ns, 70);
}

TEST_F(OperatorSummaryBuilderTest, CreditsACallerThatEndsAfterItsCalleesKernelArrived) {
  const auto p = builder.build(true);
  const auto* copy = find(p, {"backward"}, "aten::copy_", "[[8], [8]]");
  const auto* to = find(p, {"backward"}, "aten::to", "[[8], [8]]");
  ASSERT_TRUE(copy && to);
  EXPECT_EQ(copy->self_gpu_ns, 12);
  EXPECT_EQ(to->self_gpu_ns, 0);
  EXPECT_EQ(to->total_gpu_ns, 12);
}

TEST_F(OperatorSummaryBuilderTest, KernelsOutsideOperatorsGoToTheRangeAndOutsideRangesAreCounted) {
  const auto p = builder.build(true);
  const auto* outside = find(p, {"forward", "attention"}, kOutsideOperators, "");
  ASSERT_NE(outside, nullptr);
  EXPECT_EQ(outside->calls, 0);
  EXPECT_EQ(outside->self_gpu_ns, 30);
  ASSERT_EQ(outside->kernels.size(), 1u);
  EXPECT_EQ(outside->kernels[0].name, "fused_kernel");
  EXPECT_EQ(p.unattributed_kernels, 1u);  // correlation 16, launched between the steps
  // Every measured kernel once, in self GPU time: 100 + 40 + 50 + 70 + 30 + 5 + 12; the
  // warm-up's (9) and the unattributed one (8) are in none.
  int64_t self_gpu = 0;
  for (const auto& op : p.operators) self_gpu += op.self_gpu_ns;
  EXPECT_EQ(self_gpu, 307);
}

TEST(OperatorSummaryBuilder, KernelsWhoseLaunchOrCallNeverCameAreUnattributedAtTheEnd) {
  OperatorSummaryBuilder builder;
  builder.add_ranges({range(1, 0, "step", 0, 100, 0, false)});
  ActivityBatch activity;
  activity.correlations = {{2, 42}};  // call 42 never ends in the record
  activity.api = {launch(2, 10)};
  activity.kernels = {kernel("gemm_a", 1, 50, 5), kernel("gemm_a", 2, 60, 5)};  // no launch record for 1
  builder.add_activity(activity);
  EXPECT_EQ(builder.build(false).unattributed_kernels, 0u) << "still waiting in a live snapshot";
  EXPECT_EQ(builder.build(true).unattributed_kernels, 2u);
}

TEST(OperatorSummaryBuilder, WithoutGpuActivityItSaysSoAndCountsDroppedCalls) {
  OperatorSummaryBuilder builder;
  builder.add_ranges({range(1, 0, "step", 0, 100, 0, false)});
  OperatorCallBatch calls;
  calls.strings = kStrings;
  calls.calls = {call(1, 0, 1, kMm, kShape4x8, 10, 20, 0), call(2, 0, 99, kMm, kShape4x8, 30, 40, 0)};
  calls.dropped_calls = 3;
  builder.add_calls(calls);
  const auto p = builder.build(true);
  EXPECT_FALSE(p.gpu_activity_recorded);
  EXPECT_EQ(p.dropped_calls, 4u);  // 3 beyond the bound, 1 in a range the builder never saw
  ASSERT_EQ(p.operators.size(), 1u);
  EXPECT_TRUE(p.operators[0].range_path.empty()) << "paths start below the step";
  EXPECT_EQ(p.operators[0].calls, 1);
}

}  // namespace
}  // namespace stepscope::profiling
