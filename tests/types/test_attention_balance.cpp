// Softmax against the attention matrix multiplies, from hand-built range summaries.
#include <gtest/gtest.h>

#include "profiling/attention_balance.h"

namespace stepscope::profiling {
namespace {

RangeKernelSummary range(const std::string& name, int64_t gpu_ns, std::vector<CategoryShare> categories) {
  RangeKernelSummary summary;
  summary.range = name;
  summary.gpu_time_ns = gpu_ns;
  summary.categories = std::move(categories);
  return summary;
}

TEST(AttentionBalance, PerStepTimesFromTheAttentionRangesAndFlopsPerScore) {
  KernelProfile profile;
  profile.measured_steps = 4;
  profile.ranges = {
      range("softmax", 8000, {{KernelCategory::softmax, 8000, 4, 100}}),
      // The masking and scaling kernels of "attention scores" are not matrix multiplies.
      range("attention scores", 30000, {{KernelCategory::matrix_multiply, 20000, 4, 66.7},
                                        {KernelCategory::elementwise, 10000, 8, 33.3}}),
      range("final matmul", 24000, {{KernelCategory::matrix_multiply, 16000, 4, 66.7},
                                    {KernelCategory::elementwise, 8000, 4, 33.3}}),
  };
  const auto balance = attention_balance(profile, 64);
  ASSERT_TRUE(balance.has_value());
  EXPECT_DOUBLE_EQ(balance->softmax_ns_per_step, 2000.0);
  EXPECT_DOUBLE_EQ(balance->matmul_ns_per_step, 9000.0);
  EXPECT_DOUBLE_EQ(balance->time_ratio(), 4.5);
  // 2·64 FLOPs for a score of Q·Kᵀ, 2·64 for its use in P·V, against ~5 in softmax.
  EXPECT_DOUBLE_EQ(balance->flops_ratio, 256.0 / 5.0);
}

TEST(AttentionBalance, NothingWithoutGpuTimeForTheRanges) {
  KernelProfile profile;
  profile.measured_steps = 2;
  EXPECT_FALSE(attention_balance(profile, 64).has_value());
  profile.ranges = {range("softmax", 0, {}), range("attention scores", 0, {})};
  EXPECT_FALSE(attention_balance(profile, 64).has_value());
  profile.ranges = {range("softmax", 100, {{KernelCategory::softmax, 100, 1, 100}})};
  EXPECT_FALSE(attention_balance(profile, 64).has_value());  // no matrix multiplies recorded
}

}  // namespace
}  // namespace stepscope::profiling
