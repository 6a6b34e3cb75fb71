// CUDA paths of the engine. Every test skips cleanly where no GPU is visible; the device
// run (tests/device/bench_vs_pytorch.sh) executes them on an H100/H200.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <torch/torch.h>

#include "cli/commands.h"
#include "compat/torch_compat.h"
#include "io/npy_file.h"
#include "support/temp_path.h"
#include "runners/memory_estimate.h"
#include "experiments/bench/bench_sweep.h"
#include "runners/device_backend.h"
#include "experiments/bench/step_benchmark.h"

namespace stepscope {
namespace {

#define REQUIRE_GPU()                                                                  \
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible to this build"

BenchConfig small_gpu_config(StepMode mode, Precision precision) {
  BenchConfig c;
  c.model = model_preset("mini");
  c.model.context_length = 128;
  c.context = 128;
  c.batch = 4;
  c.mode = mode;
  c.precision = precision;
  c.warmup_steps = 2;
  c.measured_steps = 3;
  c.device = Device{DeviceKind::cuda, -1};
  return c;
}

TEST(CudaEngine, EveryModeAndPrecisionRunsWithEventTimingAndPeakMemory) {
  REQUIRE_GPU();
  for (Precision precision : {Precision::fp32, Precision::bf16, Precision::fp16}) {
    for (StepMode mode : {StepMode::forward, StepMode::forward_backward, StepMode::train}) {
      const auto r = run_step_benchmark(small_gpu_config(mode, precision));
      ASSERT_EQ(r.status, RunStatus::ok) << to_string(precision) << " " << to_string(mode) << ": " << r.message;
      EXPECT_EQ(r.timer, "cuda-events");
      EXPECT_GT(r.total.mean_ms, 0);
      EXPECT_GE(r.peak_memory_bytes, 4 * r.parameters);
      if (runs_optimizer(mode)) EXPECT_GE(r.peak_memory_bytes, 16 * r.parameters);
      EXPECT_GT(r.peak_tflops, 0) << "device '" << r.device_name << "' missing from the peak table";
    }
  }
}

// A configuration past the device's memory, but close enough (1.25x the estimate) that the
// memory pre-check lets it try: the caching allocator fails, the row says OOM, the memory is
// released and the next configuration runs.
TEST(CudaEngine, OutOfMemoryIsARowAndMemoryIsReleased) {
  REQUIRE_GPU();
  const int64_t available = make_device_backend(Device{DeviceKind::cuda, -1})->available_memory_bytes();
  ASSERT_GT(available, 0);
  BenchConfig tried;
  tried.model = with_context(model_preset("small"), 1024);
  tried.context = 1024;
  tried.mode = StepMode::train;
  tried.device = Device{DeviceKind::cuda, -1};
  tried.warmup_steps = 1;
  tried.measured_steps = 2;
  // The batch whose estimate is 1.25x what is available (activations grow linearly with it).
  int64_t low = 1, high = kMaxDimension;
  while (low < high) {
    tried.batch = (low + high) / 2;
    if (static_cast<double>(estimate_memory(tried).peak_bytes) < 1.25 * static_cast<double>(available)) {
      low = tried.batch + 1;
    } else {
      high = tried.batch;
    }
  }
  tried.batch = low;
  BenchConfig after = tried;
  after.model = model_preset("mini");
  after.context = 64;
  after.batch = 2;
  const auto rows = run_sweep({tried, after});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, RunStatus::out_of_memory) << "batch " << tried.batch << ": " << rows[0].message;
  EXPECT_EQ(rows[0].message.find("not started"), std::string::npos) << "the allocator, not the estimate, refused it";
  EXPECT_EQ(rows[1].status, RunStatus::ok) << rows[1].message;
}

TEST(CudaEngine, CheckGivesTheSameLogitsOnGpuAndCpu) {
  REQUIRE_GPU();
  const std::string dir = stepscope::testing::temp_path("dir");
  std::filesystem::create_directories(dir);
  const std::string data = std::string(STEPSCOPE_TEST_DATA_DIR) + "/tiny_model/";
  for (const char* device : {"cpu", "cuda"}) {
    std::ostringstream out, err;
    const int status = cli::run_check_command({"--checkpoint", data + "model.pt", "--tokens", data + "tokens.npy",
                                               "--heads", "4", "--device", device, "--out",
                                               dir + "/logits_" + device + ".npy"},
                                              out, err);
    ASSERT_EQ(status, 0) << err.str();
  }
  const auto cpu = read_npy_file(dir + "/logits_cpu.npy").to(torch::kFloat64);
  const auto gpu = read_npy_file(dir + "/logits_cuda.npy").to(torch::kFloat64);
  EXPECT_LT((cpu - gpu).norm().item<double>() / cpu.norm().item<double>(), 1e-5);
}

}  // namespace
}  // namespace stepscope
