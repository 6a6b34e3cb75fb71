// The memory timeline on a GPU: the caching allocator's events, categorised.
#include <gtest/gtest.h>

#include "compat/torch_compat.h"
#include "profiling/memory_timeline.h"
#include "gpu_test_config.h"
#include "runners/step_benchmark.h"

namespace stepscope {
namespace {

TEST(CudaMemory, TimelineCategoriesMatchTheConfigurationAndTheAllocatorPeak) {
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible to this build";
  auto c = testing::mini_gpu_train_config(2);
  c.profile_memory = true;
  const auto r = run_step_benchmark(c);
  ASSERT_EQ(r.status, RunStatus::ok) << r.message;
  ASSERT_TRUE(r.allocation_log);
  profiling::TimelineOptions options;
  options.device = 0;
  options.include_warmup = false;
  const auto timeline = profiling::build_memory_timeline(*r.allocation_log, options);
  ASSERT_FALSE(timeline.points.empty()) << "the caching allocator reported nothing";
  const profiling::MemoryPeak* after = nullptr;
  for (const auto& p : timeline.peaks) {
    if (p.label == "after optimizer step") after = &p;
  }
  int64_t measured_peak = 0;  // the highest point inside the measured steps' bands
  for (const auto& point : timeline.points) {
    if (point.band < 0) continue;
    const auto& band = timeline.bands[static_cast<size_t>(point.band)];
    if (!band.warmup && band.step >= 0) measured_peak = std::max(measured_peak, point.allocated_bytes);
  }
  ASSERT_NE(after, nullptr);
  using profiling::MemoryCategory;
  using profiling::category_index;
  // The caching allocator rounds blocks up to 512 bytes: allow that much per tensor.
  const int64_t slack = 512 * 3 * (9 * c.model.num_layers + 3);
  EXPECT_NEAR(after->bytes_by_category[category_index(MemoryCategory::parameter)], 4 * r.parameters, slack);
  EXPECT_NEAR(after->bytes_by_category[category_index(MemoryCategory::gradient)], 4 * r.parameters, slack);
  EXPECT_NEAR(after->bytes_by_category[category_index(MemoryCategory::optimizer_state)], 8 * r.parameters, 2 * slack);
  EXPECT_GT(after->reserved_bytes, 0);
  // The measured steps' highest point is what the allocator's own peak counter saw.
  EXPECT_NEAR(static_cast<double>(measured_peak), static_cast<double>(r.peak_memory_bytes),
              0.01 * static_cast<double>(r.peak_memory_bytes));
}

}  // namespace
}  // namespace stepscope
