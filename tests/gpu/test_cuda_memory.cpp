// The memory timeline on a GPU: the caching allocator's events, categorised, against the
// model's own sizes and the allocator's peak counter.
#include <gtest/gtest.h>

#include <vector>

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "compat/torch_compat.h"
#include "gpu_test_config.h"
#include "profiling/memory_timeline.h"
#include "experiments/bench/step_benchmark.h"

namespace stepscope {
namespace {

// Bytes of each parameter tensor of the model, from its configuration.
std::vector<int64_t> parameter_tensor_bytes(const ModelConfig& m) {
  const int64_t f = 4;  // fp32 master weights
  std::vector<int64_t> sizes = {m.vocab_size * m.d_model * f, m.vocab_size * m.d_model * f, m.d_model * f};
  for (int64_t layer = 0; layer < m.num_layers; ++layer) {
    for (int i = 0; i < 4; ++i) sizes.push_back(m.d_model * m.d_model * f);
    for (int i = 0; i < 3; ++i) sizes.push_back(m.d_model * m.d_ff * f);
    for (int i = 0; i < 2; ++i) sizes.push_back(m.d_model * f);
  }
  return sizes;
}

// What the caching allocator can hand out for those tensors: blocks are 512-byte multiples,
// and a request over 1 MiB may get up to 1 MiB more rather than split off a remainder too
// small for its large pool.
struct Bounds {
  int64_t low = 0, high = 0;
};
Bounds caching_allocator_bounds(const std::vector<int64_t>& sizes) {
  constexpr int64_t kBlock = 512, kSmall = 1 << 20;
  Bounds b;
  for (int64_t n : sizes) {
    const int64_t rounded = (n + kBlock - 1) / kBlock * kBlock;
    b.low += rounded;
    b.high += rounded + (n > kSmall ? kSmall : 0);
  }
  return b;
}

int64_t category_bytes(const profiling::MemoryPeak& p, profiling::MemoryCategory c) {
  return p.bytes_by_category[profiling::category_index(c)];
}

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
  const profiling::MemoryPeak* forward = nullptr;
  for (const auto& p : timeline.peaks) {
    if (p.label == "after optimizer step") after = &p;
    if (p.label == "forward") forward = &p;
  }
  ASSERT_NE(after, nullptr);
  ASSERT_NE(forward, nullptr);
  int64_t measured_peak = 0;  // the highest point inside the measured steps' bands
  for (const auto& point : timeline.points) {
    if (point.band < 0) continue;
    const auto& band = timeline.bands[static_cast<size_t>(point.band)];
    if (!band.warmup && band.step >= 0) measured_peak = std::max(measured_peak, point.allocated_bytes);
  }
  using profiling::MemoryCategory;
  const auto sizes = parameter_tensor_bytes(c.model);
  int64_t exact = 0;
  for (int64_t n : sizes) exact += n;
  ASSERT_EQ(exact, 4 * r.parameters) << "the test's parameter list is out of date";
  const Bounds one = caching_allocator_bounds(sizes);
  auto expect_within = [](int64_t value, int64_t low, int64_t high, const char* what) {
    EXPECT_GE(value, low) << what;
    EXPECT_LE(value, high) << what;
  };
  expect_within(category_bytes(*after, MemoryCategory::parameter), one.low, one.high, "parameters");
  expect_within(category_bytes(*after, MemoryCategory::gradient), one.low, one.high, "gradients");
  expect_within(category_bytes(*after, MemoryCategory::optimizer_state), 2 * one.low, 2 * one.high,
                "AdamW's two moments");
  // The residual stream alone is saved once per layer and norm: activations are at least that.
  const int64_t residual = c.batch * c.context * c.model.d_model * 4;
  EXPECT_GT(category_bytes(*forward, MemoryCategory::activation), 2 * c.model.num_layers * residual);
  EXPECT_GT(after->reserved_bytes, 0);
  // The allocator's reserved total covers what is allocated at every point.
  int64_t points_below = 0;
  for (const auto& point : timeline.points) points_below += point.reserved_bytes < point.allocated_bytes;
  EXPECT_EQ(points_below, 0) << "points whose reserved total is below the allocated one";
  // The engine runs everything on the device's default stream, autograd's thread included.
  const c10::Device cuda0(c10::kCUDA, 0);
  const auto default_stream = c10::impl::getDeviceGuardImpl(c10::kCUDA)->getDefaultStream(cuda0).id();
  int64_t elsewhere = 0;
  for (const auto& event : r.allocation_log->events) elsewhere += event.device == 0 && event.stream != default_stream;
  EXPECT_EQ(elsewhere, 0) << "allocations on a stream other than the default one";
  // The measured steps' highest point is what the allocator's own peak counter saw,
  // including what was allocated before recording began (workspaces of earlier tests).
  EXPECT_NEAR(static_cast<double>(measured_peak), static_cast<double>(r.peak_memory_bytes),
              0.01 * static_cast<double>(r.peak_memory_bytes))
      << "baseline " << timeline.baseline_bytes;
  // The allocator's own history, pickled (protocol 2+ begins with 0x80); its contents are
  // checked by Python's pickle and memory_viz in tests/device/memory_profiler_vs_pytorch.sh.
  ASSERT_TRUE(r.allocator_snapshot);
  ASSERT_GT(r.allocator_snapshot->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*r.allocator_snapshot)[0]), 0x80);
}

}  // namespace
}  // namespace stepscope
