#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "model/adamw.h"
#include "profiling/allocation_meter.h"

namespace stepscope {
namespace {

// Two steps on p = [1, -2] with gradients worked through by hand in double.
TEST(AdamW, TwoStepsMatchHandComputation) {
  const double lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.01;
  auto p = torch::tensor({1.0, -2.0}, torch::kFloat64).requires_grad_(true);
  AdamW optimizer({p}, AdamWOptions{lr, b1, b2, eps, wd});
  const double grads[2][2] = {{0.5, -1.5}, {-0.25, 2.0}};
  double expected[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0};
  for (int t = 1; t <= 2; ++t) {
    p.mutable_grad() = torch::tensor({grads[t - 1][0], grads[t - 1][1]}, torch::kFloat64);
    optimizer.step();
    const double a_t = lr * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t));
    for (int i = 0; i < 2; ++i) {
      const double g = grads[t - 1][i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      expected[i] -= a_t * m[i] / (std::sqrt(v[i]) + eps);
      expected[i] -= lr * wd * expected[i];  // decay after the update
    }
    EXPECT_NEAR(p[0].item<double>(), expected[0], 1e-12) << "step " << t;
    EXPECT_NEAR(p[1].item<double>(), expected[1], 1e-12) << "step " << t;
  }
  EXPECT_EQ(optimizer.step_count(0), 2);
  EXPECT_NEAR(optimizer.first_moment(0)[0].item<double>(), m[0], 1e-15);
  EXPECT_NEAR(optimizer.second_moment(0)[1].item<double>(), v[1], 1e-15);
}

TEST(AdamW, DecayIsAppliedAfterTheUpdateNotBefore) {
  // With decay first, p would be 10*(1-lr*wd) - lr*sign(g); after, (10 - lr*sign(g))*(1-lr*wd).
  auto p = torch::tensor({10.0}, torch::kFloat64).requires_grad_(true);
  AdamW optimizer({p}, AdamWOptions{0.5, 0.9, 0.999, 0.0, 0.1});
  p.mutable_grad() = torch::tensor({1.0}, torch::kFloat64);
  optimizer.step();
  EXPECT_NEAR(p.item<double>(), (10.0 - 0.5) * (1 - 0.05), 1e-12);
}

TEST(AdamW, ParametersWithoutGradientsAreLeftAlone) {
  auto with_grad = torch::ones({3}).requires_grad_(true);
  auto without = torch::ones({3}).requires_grad_(true);
  AdamW optimizer({with_grad, without});
  with_grad.mutable_grad() = torch::ones({3});
  optimizer.step();
  EXPECT_TRUE(torch::equal(without, torch::ones({3})));
  EXPECT_EQ(optimizer.step_count(1), 0);
  EXPECT_FALSE(optimizer.first_moment(1).defined());
  EXPECT_LT(with_grad[0].item<float>(), 1.0f);
  optimizer.zero_grad();
  EXPECT_FALSE(with_grad.grad().defined());
}

TEST(AdamW, ChunkingDoesNotChangeTheResult) {
  torch::manual_seed(11);
  std::vector<at::Tensor> whole, chunked;
  for (int64_t n : {3, 4, 2, 7}) {
    whole.push_back(torch::randn({n}).requires_grad_(true));
    chunked.push_back(whole.back().detach().clone().requires_grad_(true));
  }
  AdamW one_batch(whole), small_batches(chunked, AdamWOptions{1e-3, 0.9, 0.999, 1e-8, 0.01, 5});
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < whole.size(); ++i) {
      const auto g = torch::randn_like(whole[i]);
      whole[i].mutable_grad() = g.clone();
      chunked[i].mutable_grad() = g.clone();
    }
    one_batch.step();
    small_batches.step();
  }
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_TRUE(torch::equal(whole[i], chunked[i])) << i;
}

TEST(AdamW, ExtraMemoryIsBoundedByTheChunkNotTheModel) {
  AllocationMeter meter;
  std::vector<at::Tensor> params;
  for (int i = 0; i < 16; ++i) params.push_back(torch::randn({1 << 18}).requires_grad_(true));  // 1 MiB each
  AdamW optimizer(params, AdamWOptions{1e-3, 0.9, 0.999, 1e-8, 0.01, 1 << 18});
  for (auto& p : params) p.mutable_grad() = torch::randn_like(p);
  optimizer.step();  // allocates m and v
  meter.reset_peak();
  const int64_t before = meter.current_bytes();
  optimizer.step();
  // One chunk's sqrt(v) + eps: 1 MiB, against 16 MiB if the whole model went in one batch.
  EXPECT_LE(meter.peak_bytes() - before, int64_t{2} << 20);
  EXPECT_GE(meter.peak_bytes() - before, int64_t{1} << 20);
}

TEST(AdamW, RejectsOutOfRangeHyperParameters) {
  auto p = torch::ones({1}).requires_grad_(true);
  EXPECT_THROW(AdamW({p}, AdamWOptions{-1.0}), std::invalid_argument);
  EXPECT_THROW(AdamW({p}, AdamWOptions{1e-3, 1.0}), std::invalid_argument);
  EXPECT_THROW(AdamW({p}, AdamWOptions{1e-3, 0.9, 1.5}), std::invalid_argument);
}

}  // namespace
}  // namespace stepscope
