// Building blocks against their formulas, evaluated element by element in double.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "model/init.h"
#include "model/layers.h"
#include "model/loss.h"
#include "test_support.h"

namespace stepscope {
namespace {

const auto kF32 = torch::TensorOptions().dtype(torch::kFloat32);

TEST(Layers, LinearComputesXTimesWTransposed) {
  torch::manual_seed(1);
  Linear linear(5, 3, kF32);
  EXPECT_EQ(linear->weight.sizes(), (std::vector<int64_t>{3, 5}));
  const auto x = torch::randn({2, 5});
  const auto y = linear(x);
  auto w = linear->weight.accessor<float, 2>();
  auto xa = x.accessor<float, 2>();
  for (int b = 0; b < 2; ++b) {
    for (int o = 0; o < 3; ++o) {
      double expected = 0;
      for (int i = 0; i < 5; ++i) expected += static_cast<double>(xa[b][i]) * w[o][i];
      EXPECT_NEAR(y[b][o].item<double>(), expected, 1e-5);
    }
  }
}

TEST(Layers, TruncatedNormalInitHasTheReferenceSpreadAndBounds) {
  torch::manual_seed(2);
  auto t = torch::empty({400, 600});
  const double std = linear_init_std(600, 400);
  truncated_normal_(t, std);
  EXPECT_LE(t.abs().max().item<double>(), 3 * std + 1e-7);
  // A normal truncated at +-3 sigma has standard deviation 0.98658 sigma.
  EXPECT_NEAR(t.std().item<double>() / std, 0.98658, 0.01);
  EXPECT_NEAR(t.mean().item<double>(), 0.0, 0.01 * std);
}

TEST(Layers, RMSNormMatchesFormula) {
  torch::manual_seed(3);
  RMSNorm norm(6, kF32);
  { torch::NoGradGuard g; norm->weight.copy_(torch::randn({6})); }
  const auto x = torch::randn({2, 3, 6});
  const auto y = norm(x);
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 3; ++b) {
      double mean_square = 0;
      for (int i = 0; i < 6; ++i) mean_square += std::pow(x[a][b][i].item<double>(), 2) / 6;
      for (int i = 0; i < 6; ++i) {
        const double expected = x[a][b][i].item<double>() / std::sqrt(mean_square + 1e-5) * norm->weight[i].item<double>();
        EXPECT_NEAR(y[a][b][i].item<double>(), expected, 1e-5);
      }
    }
  }
}

TEST(Layers, RMSNormKeepsTheInputDtype) {
  RMSNorm norm(8, kF32);
  EXPECT_EQ(norm(torch::randn({2, 8}).to(torch::kBFloat16)).scalar_type(), torch::kBFloat16);
}

TEST(Layers, RoPERotatesInterleavedPairs) {
  const int64_t d = 8, seq = 5;
  const double theta = 10000.0;
  RotaryEmbedding rope(16, d, theta, kF32);
  torch::manual_seed(4);
  const auto x = torch::randn({2, seq, d});
  const auto y = rope(x);
  for (int b = 0; b < 2; ++b) {
    for (int p = 0; p < seq; ++p) {
      for (int i = 0; i < d / 2; ++i) {
        const double angle = p * std::pow(theta, -2.0 * i / d);
        const double x1 = x[b][p][2 * i].item<double>(), x2 = x[b][p][2 * i + 1].item<double>();
        EXPECT_NEAR(y[b][p][2 * i].item<double>(), std::cos(angle) * x1 - std::sin(angle) * x2, 1e-5);
        EXPECT_NEAR(y[b][p][2 * i + 1].item<double>(), std::sin(angle) * x1 + std::cos(angle) * x2, 1e-5);
      }
    }
  }
}

TEST(Layers, RoPERejectsSequencesLongerThanItsContext) {
  RotaryEmbedding rope(4, 8, 10000.0, kF32);
  EXPECT_THROW(rope(torch::randn({1, 5, 8})), c10::Error);
}

TEST(Layers, SwiGLUMatchesFormula) {
  torch::manual_seed(5);
  SwiGLU ffn(4, 6, kF32);
  const auto x = torch::randn({3, 4}, torch::kFloat64);
  const auto w1 = ffn->w1->weight.to(torch::kFloat64), w2 = ffn->w2->weight.to(torch::kFloat64),
             w3 = ffn->w3->weight.to(torch::kFloat64);
  const auto a = x.matmul(w1.t());
  const auto silu = a / (1 + torch::exp(-a));
  const auto expected = (silu * x.matmul(w3.t())).matmul(w2.t());
  EXPECT_LT(testing::relative_error(ffn(x.to(torch::kFloat32)), expected), 1e-6);
}

TEST(Layers, CrossEntropyIsMeanNegativeLogSoftmaxAtTarget) {
  torch::manual_seed(6);
  const auto logits = torch::randn({2, 3, 7}) * 20;  // large values exercise max-stabilisation
  const auto targets = torch::randint(7, {2, 3});
  double expected = 0;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 3; ++b) {
      double max = -1e300, sum = 0;
      for (int v = 0; v < 7; ++v) max = std::max(max, logits[a][b][v].item<double>());
      for (int v = 0; v < 7; ++v) sum += std::exp(logits[a][b][v].item<double>() - max);
      const double target_logit = logits[a][b][targets[a][b].item<int64_t>()].item<double>();
      expected += -(target_logit - max - std::log(sum)) / 6.0;
    }
  }
  EXPECT_NEAR(mean_cross_entropy(logits, targets).item<double>(), expected, 1e-5);
}

}  // namespace
}  // namespace stepscope
