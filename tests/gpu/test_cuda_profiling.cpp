// CUPTI on a real GPU: kernels are recorded and attributed to the engine's ranges.
#include <gtest/gtest.h>

#include "compat/torch_compat.h"
#include "profiling/kernel_summary_builder.h"
#include "gpu_test_config.h"
#include "runners/step_benchmark.h"

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
  EXPECT_EQ(p.measured_steps, 3);
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
  // GPU time fits in the measured wall time of the steps.
  EXPECT_LE(static_cast<double>(window->gpu_time_ns), r.total.mean_ms * 1e6 * 3 * 1.01);
  ASSERT_EQ(p.steps.size(), 3u);
  for (const auto& s : p.steps) EXPECT_GT(s.busy_ns, 0);
}

}  // namespace
}  // namespace stepscope
