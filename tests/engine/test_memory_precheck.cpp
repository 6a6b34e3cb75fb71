// A configuration far beyond the machine's memory is an OOM result at once, with the estimate
// in its message, instead of growing into swap until the kernel kills the process.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "experiments/memory_precheck.h"
#include "experiments/bench/step_benchmark.h"

namespace stepscope {
namespace {

TEST(MemoryPrecheck, RefusesOnlyWhatIsClearlyTooLarge) {
  constexpr int64_t gib = int64_t{1} << 30;
  EXPECT_NO_THROW(refuse_if_clearly_too_large(10 * gib, 8 * gib, Device{}, "x"));  // within the estimate's margin
  EXPECT_NO_THROW(refuse_if_clearly_too_large(100 * gib, -1, Device{}, "x"));     // unknown: always tried
  try {
    refuse_if_clearly_too_large(100 * gib, 8 * gib, Device{DeviceKind::cuda, 0}, "the weights");
    FAIL() << "not refused";
  } catch (const EstimatedOutOfMemory& e) {
    EXPECT_EQ(std::string(e.what()),
              "not started: needs about 100 GiB (the weights) by the estimate, cuda:0 has 8.00 GiB available");
  }
}

// The 2.7B model at batch 64 x 2048 tokens needs terabytes: no CPU has them.
TEST(MemoryPrecheck, AHopelessCpuRunIsAnOomRowAtOnce) {
  BenchConfig c;
  c.model = with_context(model_preset("2.7B"), 2048);
  c.context = 2048;
  c.batch = 64;
  c.warmup_steps = 0;
  c.measured_steps = 1;
  const auto start = std::chrono::steady_clock::now();
  const BenchResult r = run_step_benchmark(c);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, RunStatus::out_of_memory) << r.message;
  EXPECT_NE(r.message.find("not started: needs about"), std::string::npos) << r.message;
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_GT(r.parameters, 2000000000);  // the row still says what the model is
}

}  // namespace
}  // namespace stepscope
