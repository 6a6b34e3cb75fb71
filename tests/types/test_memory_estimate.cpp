// The memory estimate against peaks the engine measured (H200, 2026-11-21,
// docs/results/2026-11-21-h200-memory/ours.csv: torch.cuda's max_memory_allocated).
#include <gtest/gtest.h>

#include "runners/memory_estimate.h"

namespace stepscope {
namespace {

BenchConfig config(const std::string& model, int64_t context, Precision precision, StepMode mode) {
  BenchConfig c;
  c.model = model_preset(model);
  c.context = context;
  c.batch = 4;
  c.precision = precision;
  c.mode = mode;
  return c;
}

TEST(MemoryEstimate, ComponentsFollowTheParameterCount) {
  const auto e = estimate_memory(config("2.7B", 256, Precision::fp32, StepMode::train));
  EXPECT_EQ(e.parameters, parameter_count(model_preset("2.7B")));
  EXPECT_EQ(e.weight_bytes, 4 * e.parameters);
  EXPECT_EQ(e.gradient_bytes, 4 * e.parameters);
  EXPECT_EQ(e.optimizer_bytes, 8 * e.parameters);
  const auto forward = estimate_memory(config("2.7B", 256, Precision::bf16, StepMode::forward));
  EXPECT_EQ(forward.weight_bytes, 6 * forward.parameters) << "autocast caches a 16-bit copy of each weight";
  EXPECT_EQ(forward.gradient_bytes, 0);
  EXPECT_EQ(forward.optimizer_bytes, 0);
  EXPECT_EQ(forward.peak_bytes, forward.weight_bytes + forward.activation_bytes);
}

TEST(MemoryEstimate, WithinTenPercentOfTheMeasuredPeaks) {
  struct Measured {
    int64_t context;
    Precision precision;
    StepMode mode;
    double gib;
  };
  const Measured measured[] = {
      {128, Precision::fp32, StepMode::forward, 17.21}, {128, Precision::fp32, StepMode::train, 51.82},
      {128, Precision::bf16, StepMode::forward, 22.20}, {128, Precision::bf16, StepMode::train, 51.63},
      {256, Precision::fp32, StepMode::forward, 22.11}, {256, Precision::fp32, StepMode::train, 51.63},
      {256, Precision::bf16, StepMode::forward, 25.96}, {256, Precision::bf16, StepMode::train, 51.57},
      {512, Precision::fp32, StepMode::forward, 33.34}, {512, Precision::fp32, StepMode::train, 58.93},
      {512, Precision::bf16, StepMode::forward, 35.69}, {512, Precision::bf16, StepMode::train, 61.19},
  };
  for (const auto& m : measured) {
    const double estimate = static_cast<double>(estimate_memory(config("2.7B", m.context, m.precision, m.mode)).peak_bytes) /
                            (1024.0 * 1024.0 * 1024.0);
    EXPECT_NEAR(estimate / m.gib, 1.0, 0.10) << m.context << " " << to_string(m.precision) << " "
                                             << to_string(m.mode) << ": estimate " << estimate << " GiB";
  }
}

}  // namespace
}  // namespace stepscope
