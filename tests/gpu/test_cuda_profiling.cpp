// CUPTI on a real GPU: kernels are recorded and attributed to the engine's ranges.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <vector>

#include "compat/torch_compat.h"
#include "profiling/kernel_summary_builder.h"
#include "gpu_test_config.h"
#include "experiments/bench/step_benchmark.h"

namespace stepscope {
namespace {

TEST(CudaProfiling, KernelsAreAttributedToTheStepsRanges) {
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible to this build";
  auto c = testing::mini_gpu_train_config(3);
  c.profile_kernels = true;
  const auto r = run_step_benchmark(c);
  ASSERT_EQ(r.status, RunStatus::ok) << r.message;
  ASSERT_TRUE(r.kernel_profile);
  const auto& p = *r.kernel_profile;
  ASSERT_TRUE(p.gpu_activity_recorded) << p.source_message;
  // The profiler traced 3 steps of its own after the 3 measured ones, which ran untraced.
  EXPECT_EQ(p.measured_steps, 3);
  EXPECT_EQ(r.steps.size(), 3u);
  ASSERT_EQ(r.profiled.count, 3);
  EXPECT_GT(r.profiled.mean_ms, 0);
  EXPECT_EQ(p.dropped_records, 0u);
  for (const char* name : {profiling::kMeasuredWindow, "step", "forward", "backward", "optimizer step",
                           "attention scores", "softmax", "final matmul", "feed-forward"}) {
    const auto* range = profiling::find_range(p, name);
    ASSERT_NE(range, nullptr) << name;
    EXPECT_GT(range->gpu_time_ns, 0) << name;
  }
  // Every kernel of a step belongs to forward, backward or the optimizer step.
  const auto* window = profiling::find_range(p, profiling::kMeasuredWindow);
  int64_t phases = 0;
  for (const char* phase : {"forward", "backward", "optimizer step"}) {
    phases += profiling::find_range(p, phase)->gpu_time_ns;
  }
  EXPECT_EQ(phases, window->gpu_time_ns);
  // GPU time fits in the wall time of the steps it was traced in.
  EXPECT_LE(static_cast<double>(window->gpu_time_ns), r.profiled.mean_ms * 1e6 * 3 * 1.01);
  ASSERT_EQ(p.steps.size(), 3u);
  for (const auto& s : p.steps) {
    EXPECT_GT(s.busy_ns, 0);
    EXPECT_LE(s.span_ns, static_cast<int64_t>(r.profiled.max_ms * 1e6 * 1.01)) << "step " << s.step;
  }
  EXPECT_EQ(p.untimed_records, 0u);
}

// Operators on a GPU: each kernel of the measured steps belongs to the operator whose launch
// carried its call's id (or to a range's "(outside operators)"), once: the operators' self GPU
// times add up to the kernel summaries' measured window.
TEST(CudaProfiling, OperatorsOwnTheKernelsTheyLaunched) {
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible to this build";
  auto c = testing::mini_gpu_train_config(3);
  c.profile_kernels = true;
  c.profile_operators = true;
  const auto r = run_step_benchmark(c);
  ASSERT_EQ(r.status, RunStatus::ok) << r.message;
  ASSERT_TRUE(r.operator_profile && r.kernel_profile);
  const auto& ops = *r.operator_profile;
  ASSERT_TRUE(ops.gpu_activity_recorded) << ops.source_message;
  EXPECT_EQ(ops.measured_steps, 3);
  EXPECT_EQ(ops.dropped_calls, 0u);
  int64_t self_gpu = 0, matmul_kernels = 0;
  for (const auto& op : ops.operators) {
    EXPECT_LE(op.self_gpu_ns, op.total_gpu_ns) << op.name;
    self_gpu += op.self_gpu_ns;
    if (!op.range_path.empty() && op.range_path.front() == "forward" && (op.name == "aten::mm" || op.name == "aten::addmm")) {
      for (const auto& k : op.kernels) matmul_kernels += k.category == profiling::KernelCategory::matrix_multiply;
    }
  }
  EXPECT_GT(matmul_kernels, 0) << "the forward pass's matrix multiplies launch GEMM kernels";
  const auto* window = profiling::find_range(*r.kernel_profile, profiling::kMeasuredWindow);
  ASSERT_NE(window, nullptr);
  EXPECT_NEAR(static_cast<double>(self_gpu), static_cast<double>(window->gpu_time_ns), 0.01 * window->gpu_time_ns);
}

// Subscribers see summaries while the run goes, at least every 500 ms, with GPU time in them
// before the run ends (CUPTI hands over completed buffers during the run).
class LiveProfiles : public ProgressSink {
 public:
  void on_progress(const Progress&) override {}
  void on_kernel_profile(const profiling::KernelProfile& profile) override {
    const auto* window = profiling::find_range(profile, profiling::kMeasuredWindow);
    std::lock_guard<std::mutex> lock(mutex);
    arrivals.push_back(std::chrono::steady_clock::now());
    gpu_ns.push_back(window ? window->gpu_time_ns : 0);
  }
  std::mutex mutex;
  std::vector<std::chrono::steady_clock::time_point> arrivals;
  std::vector<int64_t> gpu_ns;
};

TEST(CudaProfiling, SummariesArriveWhileTheRunGoes) {
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible to this build";
  auto c = testing::mini_gpu_train_config(400);
  c.profile_kernels = true;
  LiveProfiles live;
  const auto r = run_step_benchmark(c, &live);
  ASSERT_EQ(r.status, RunStatus::ok) << r.message;
  const double run_ms = r.total.mean_ms * 400;
  std::lock_guard<std::mutex> lock(live.mutex);
  ASSERT_GE(live.arrivals.size(), 2u) << "a run of " << run_ms << " ms";
  for (size_t i = 1; i < live.arrivals.size(); ++i) {
    using Ms = std::chrono::duration<double, std::milli>;
    EXPECT_LE(Ms(live.arrivals[i] - live.arrivals[i - 1]).count(), 500.0) << "between summaries " << i - 1 << " and " << i;
  }
  int growing = 0;
  for (size_t i = 1; i < live.gpu_ns.size(); ++i) growing += live.gpu_ns[i] > live.gpu_ns[i - 1];
  EXPECT_GE(growing, 2) << "GPU time in the live summaries grew only " << growing << " times in " << run_ms << " ms";
  ASSERT_FALSE(r.kernel_profile->ranges.empty());
  EXPECT_GE(r.kernel_profile->ranges.front().gpu_time_ns, live.gpu_ns.back());
}

}  // namespace
}  // namespace stepscope
