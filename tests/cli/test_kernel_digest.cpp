// The terminal digest of a kernel profile, from a hand-built profile.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "cli/kernel_digest.h"
#include "model/model_config.h"

namespace stepscope::cli {
namespace {

using profiling::KernelCategory;

profiling::KernelStats stats(const std::string& name, KernelCategory category, int64_t total, double percent,
                             double per_step) {
  return {"void " + name + "<float>(float*)", name, category, /*instances=*/0, total, 0, 0, 0, 0, 0, percent, per_step};
}

profiling::RangeKernelSummary summary(const std::string& name, int64_t gpu_ns,
                                      std::vector<profiling::CategoryShare> categories) {
  profiling::RangeKernelSummary s;
  s.range = name;
  s.gpu_time_ns = gpu_ns;
  s.categories = std::move(categories);
  return s;
}

BenchResult profiled(profiling::KernelProfile profile) {
  BenchResult result;
  result.config.model = model_preset("small");
  result.config.context = 256;
  result.config.mode = StepMode::forward_backward;
  result.kernel_profile = std::make_shared<profiling::KernelProfile>(std::move(profile));
  return result;
}

TEST(KernelDigest, TopKernelsPhaseSharesBusyTimeAndAttentionBalance) {
  profiling::KernelProfile p;
  p.measured_steps = 2;
  p.gpu_activity_recorded = true;
  auto window = summary("measured window", 10000, {{KernelCategory::matrix_multiply, 6000, 12, 60.0},
                                                   {KernelCategory::elementwise, 3000, 6, 30.0},
                                                   {KernelCategory::softmax, 1000, 2, 10.0}});
  for (int i = 0; i < 7; ++i) {
    window.kernels.push_back(stats("kernel_" + std::to_string(i), KernelCategory::elementwise, 100 - i, 10 - i, 1));
  }
  window.kernels[0] = stats("gemm_big", KernelCategory::matrix_multiply, 6000, 60.0, 3);
  p.ranges = {window,
              summary("forward", 4000, {{KernelCategory::matrix_multiply, 3000, 6, 75.0},
                                        {KernelCategory::softmax, 1000, 2, 25.0}}),
              summary("backward", 6000, {{KernelCategory::matrix_multiply, 3000, 6, 50.0},
                                         {KernelCategory::elementwise, 3000, 6, 50.0}}),
              summary("softmax", 1000, {{KernelCategory::softmax, 1000, 2, 100}}),
              summary("attention scores", 2000, {{KernelCategory::matrix_multiply, 2000, 2, 100}}),
              summary("final matmul", 2000, {{KernelCategory::matrix_multiply, 2000, 2, 100}})};
  p.steps = {{1, 1000, 900, 100, 10, 90, false}, {2, 1000, 700, 300, 10, 70, false}};
  std::ostringstream out;
  print_kernel_digest(out, profiled(p));
  const std::string text = out.str();
  EXPECT_NE(text.find("kernels of small ctx 256 b 4 fp32 forward-backward, 2 measured step(s)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("60.0%       3.0  matrix multiply  gemm_big"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel_4"), std::string::npos);
  EXPECT_EQ(text.find("kernel_5"), std::string::npos) << "only the top five kernels";
  EXPECT_NE(text.find("forward       backward     whole step"), std::string::npos) << text;
  EXPECT_NE(text.find("matrix multiply            75.0%          50.0%          60.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("softmax                    25.0%           0.0%          10.0%"), std::string::npos) << text;
  EXPECT_EQ(text.find("optimizer step"), std::string::npos) << "a phase without GPU time gets no column";
  EXPECT_NE(text.find("GPU busy 80.0%"), std::string::npos) << text;
  // small: d_head 64 -> 4*64/5 = 51 x the FLOPs; 2000 ns of matmuls per step against 500 of softmax.
  EXPECT_NE(text.find("softmax 0.001 ms/step, attention matrix multiplies 0.002 ms/step: 4.0x the time for 51x"),
            std::string::npos)
      << text;
}

TEST(KernelDigest, CpuRunsShowTheirRangeTimes) {
  profiling::KernelProfile p;
  p.measured_steps = 4;
  p.cpu_ranges = {{"softmax", 8, 400000, 50000}, {"forward", 4, 8000000, 2000000}};
  std::ostringstream out;
  print_kernel_digest(out, profiled(p));
  EXPECT_NE(out.str().find("no GPU activity recorded"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("forward 2.000 ms; softmax 0.100 ms;"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace stepscope::cli
