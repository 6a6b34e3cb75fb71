#include <gtest/gtest.h>

#include <limits>

#include <torch/torch.h>

#include "model/loss_scaler.h"

namespace stepscope {
namespace {

TEST(LossScaler, ScalesLossAndUnscalesGradients) {
  LossScaler scaler(LossScalerOptions{1024.0});
  EXPECT_DOUBLE_EQ(scaler.scale(torch::tensor(2.0)).item<double>(), 2048.0);
  auto p = torch::zeros({2}).requires_grad_(true);
  p.mutable_grad() = torch::tensor({1024.0f, -2048.0f});
  EXPECT_FALSE(scaler.unscale_and_check({p}));
  EXPECT_FLOAT_EQ(p.grad()[0].item<float>(), 1.0f);
  EXPECT_FLOAT_EQ(p.grad()[1].item<float>(), -2.0f);
}

TEST(LossScaler, OverflowSkipsAndBacksOff) {
  LossScaler scaler(LossScalerOptions{1024.0, 2.0, 0.5, 2});
  auto p = torch::zeros({2}).requires_grad_(true);
  p.mutable_grad() = torch::tensor({1.0f, std::numeric_limits<float>::infinity()});
  const bool overflow = scaler.unscale_and_check({p});
  EXPECT_TRUE(overflow);
  scaler.update(overflow);
  EXPECT_DOUBLE_EQ(scaler.current_scale(), 512.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  p.mutable_grad() = torch::tensor({1.0f, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(scaler.unscale_and_check({p}));
}

TEST(LossScaler, GrowsAfterCleanInterval) {
  LossScaler scaler(LossScalerOptions{8.0, 2.0, 0.5, 3});
  scaler.update(false);
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.current_scale(), 8.0);
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.current_scale(), 16.0);
}

}  // namespace
}  // namespace stepscope
