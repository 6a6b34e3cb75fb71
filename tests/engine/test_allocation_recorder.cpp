// The allocation recorder on the CPU allocator: events, phases, labels, limits, chaining.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "profiling/allocation_meter.h"
#include "profiling/allocation_recorder.h"
#include "profiling/range_recorder.h"

namespace stepscope::profiling {
namespace {

int64_t bytes_at(const AllocationLog& log, uint64_t address) {
  for (const auto& e : log.events) {
    if (e.address == address && e.bytes > 0) return e.bytes;
  }
  return 0;
}

TEST(AllocationRecorder, RecordsAllocationsFreesPhasesAndLabels) {
  AllocationRecorder recorder;
  recorder.set_step(2, false);
  recorder.mark_phase("forward");
  uint64_t address = 0;
  {
    ScopedRange range("softmax");
    auto t = torch::empty({1000}, torch::kFloat32);
    address = reinterpret_cast<uint64_t>(t.data_ptr());
    recorder.label(t.data_ptr(), MemoryCategory::activation);
  }
  const auto log = recorder.log();
  EXPECT_EQ(bytes_at(log, address), 4000);
  int64_t freed = 0;
  std::string phase;
  for (const auto& e : log.events) {
    if (e.address != address) continue;
    if (e.bytes < 0) freed = -e.bytes;
    if (e.bytes > 0) {
      phase = e.phase;
      EXPECT_EQ(e.step, 2);
      EXPECT_FALSE(e.warmup);
      EXPECT_EQ(e.device, -1);
    }
  }
  EXPECT_EQ(freed, 4000);
  EXPECT_EQ(phase, "softmax");
  ASSERT_EQ(log.phases.size(), 1u);
  EXPECT_EQ(log.phases[0].phase, "forward");
  ASSERT_EQ(log.labels.size(), 1u);
  EXPECT_EQ(log.labels[0].address, address);
  EXPECT_EQ(log.labels[0].category, MemoryCategory::activation);
}

TEST(AllocationRecorder, CutsTheRecordAtItsLimitAndSaysSo) {
  AllocationRecorder recorder(10);
  for (int i = 0; i < 20; ++i) torch::empty({64});
  const auto log = recorder.log();
  EXPECT_EQ(log.events.size(), 10u);
  EXPECT_EQ(log.dropped_events, 30u);  // 20 allocations and 20 frees, 10 kept
  EXPECT_EQ(log.event_limit, 10);
}

TEST(AllocationRecorder, AHookInstalledBeforeKeepsCounting) {
  AllocationMeter meter;
  AllocationRecorder recorder;
  meter.reset_peak();
  const int64_t before = meter.current_bytes();
  auto t = torch::empty({1 << 20});  // 4 MiB
  EXPECT_EQ(meter.current_bytes() - before, 4 << 20);
  EXPECT_EQ(bytes_at(recorder.log(), reinterpret_cast<uint64_t>(t.data_ptr())), 4 << 20);
}

}  // namespace
}  // namespace stepscope::profiling
