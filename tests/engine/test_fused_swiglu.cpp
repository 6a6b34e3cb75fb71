// The fused engine's SwiGLU gate on the CPU (its LibTorch reference and the autograd function):
// against the eager SwiGLU module, hand values, LibTorch autograd on the unfused formula in
// fp64, and central finite differences; fp32, bf16 and odd sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <torch/torch.h>

#include "model/fused/swiglu.h"
#include "model/layers.h"
#include "test_support.h"

namespace stepscope {
namespace {

using testing::relative_error;

// silu(a) * b in fp64, differentiated by LibTorch's autograd.
struct Formula {
  torch::Tensor y, d_ab;
};
Formula unfused(const torch::Tensor& ab, const torch::Tensor& dy) {
  auto ab64 = ab.to(torch::kFloat64).detach().requires_grad_(true);
  const auto halves = ab64.chunk(2, -1);
  auto y = torch::silu(halves[0]) * halves[1];
  y.backward(dy.to(torch::kFloat64));
  return {y.detach(), ab64.grad()};
}

std::vector<int64_t> half_last(std::vector<int64_t> shape) {
  shape.back() /= 2;
  return shape;
}

TEST(FusedSwiglu, OneMatmulThenTheGateEqualsTheEagerModule) {
  torch::manual_seed(1);
  SwiGLU eager(24, 40, torch::TensorOptions().dtype(torch::kFloat32));
  const auto x = torch::randn({3, 5, 24});
  torch::NoGradGuard no_grad;
  // The fused layout: w1 and w3 stacked, one matmul gives [a | b].
  const auto w13 = torch::cat({eager->w1->weight, eager->w3->weight}, 0);
  const auto y = torch::matmul(fused::swiglu_forward_reference(torch::matmul(x, w13.t())), eager->w2->weight.t());
  EXPECT_LE(relative_error(y, eager(x)), 1e-6);
}

TEST(FusedSwiglu, ForwardGivesHandValues) {
  // silu(0) = 0; silu(1) * 2 = 2 / (1 + e^-1); silu(-1) * 3 = -3 / (1 + e).
  const auto ab = torch::tensor({{0.f, 1.f, -1.f, 5.f, 2.f, 3.f}});
  const auto y = fused::swiglu_forward_reference(ab);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(y[0][0].item<double>(), 0.0);
  EXPECT_NEAR(y[0][1].item<double>(), 2 / (1 + std::exp(-1.0)), 1e-6);
  EXPECT_NEAR(y[0][2].item<double>(), -3 / (1 + std::exp(1.0)), 1e-6);
}

TEST(FusedSwiglu, ReferenceMatchesAutogradOnTheUnfusedFormulaForOddShapes) {
  torch::manual_seed(2);
  const std::vector<std::vector<int64_t>> shapes = {{3, 5, 14}, {1, 2}, {4, 258}, {10}, {2, 3, 2048}};
  for (const auto& shape : shapes) {
    for (auto type : {torch::kFloat32, torch::kBFloat16}) {
      SCOPED_TRACE(std::string(c10::toString(type)) + " last dim " + std::to_string(shape.back()));
      const auto ab = (2 * torch::randn(shape)).to(type);
      const auto dy = torch::randn(half_last(shape)).to(type);
      const auto expected = unfused(ab, dy);
      const auto y = fused::swiglu_forward_reference(ab);
      const auto d_ab = fused::swiglu_backward_reference(dy, ab);
      ASSERT_EQ(y.scalar_type(), type);
      ASSERT_EQ(d_ab.scalar_type(), type);
      ASSERT_EQ(d_ab.sizes(), ab.sizes());
      // fp32 to a few ulps of its exp; bf16 rounds once, to 2^-9 relative per element.
      const double tol = type == torch::kFloat32 ? 1e-6 : 8e-3;
      EXPECT_LE(relative_error(y, expected.y), tol);
      EXPECT_LE(relative_error(d_ab, expected.d_ab), tol);
    }
  }
}

TEST(FusedSwiglu, AutogradFunctionMatchesCentralFiniteDifferencesInFp64) {
  torch::manual_seed(3);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto ab = (3 * torch::randn({3, 10}, f64)).requires_grad_(true);
  const auto r = torch::randn({3, 5}, f64);  // loss = sum(y * r)
  const auto loss = [&](const torch::Tensor& v) { return (fused::swiglu(v) * r).sum().item<double>(); };
  (fused::swiglu(ab) * r).sum().backward();
  const double h = 1e-6;
  torch::NoGradGuard no_grad;
  for (int64_t i = 0; i < ab.numel(); ++i) {
    auto plus = ab.detach().clone(), minus = ab.detach().clone();
    plus.view(-1)[i] += h;
    minus.view(-1)[i] -= h;
    const double numeric = (loss(plus) - loss(minus)) / (2 * h);
    EXPECT_NEAR(ab.grad().view(-1)[i].item<double>(), numeric, 1e-6) << "d_ab[" << i << "]";
  }
}

TEST(FusedSwiglu, SaturatedGatesStayFinite) {
  const auto ab = torch::tensor({{-200.f, 200.f, 90.f, 1.f, 1.f, 1.f}});
  const auto y = fused::swiglu_forward_reference(ab);
  const auto d_ab = fused::swiglu_backward_reference(torch::ones({1, 3}), ab);
  EXPECT_TRUE(torch::isfinite(y).all().item<bool>());
  EXPECT_TRUE(torch::isfinite(d_ab).all().item<bool>());
  EXPECT_NEAR(y[0][1].item<double>(), 200.0, 1e-4);  // silu(a) -> a for large a
  EXPECT_NEAR(d_ab[0][1].item<double>(), 1.0, 1e-6);  // d silu / da -> 1
  EXPECT_EQ(d_ab[0][0].item<double>(), 0.0);          // and -> 0 for very negative a
}

TEST(FusedSwiglu, AutogradFunctionRunsTheDispatchAndKeepsTheDtype) {
  torch::manual_seed(4);
  for (auto type : {torch::kFloat32, torch::kBFloat16}) {
    const auto ab0 = torch::randn({2, 7, 30}).to(type);
    auto ab = ab0.clone().requires_grad_(true);
    const auto y = fused::swiglu(ab);
    const auto dy = torch::randn({2, 7, 15}).to(type);
    y.backward(dy);
    EXPECT_TRUE(torch::equal(y.detach(), fused::swiglu_forward_reference(ab0)));
    ASSERT_EQ(ab.grad().scalar_type(), type);
    EXPECT_TRUE(torch::equal(ab.grad(), fused::swiglu_backward_reference(dy, ab0)));
  }
}

TEST(FusedSwiglu, TakesStridedInputsAndRefusesAnOddLastDimension) {
  torch::manual_seed(5);
  const auto ab = torch::randn({8, 6}).t();  // [6, 8], not contiguous
  EXPECT_LE(relative_error(fused::swiglu_forward(ab), unfused(ab, torch::zeros({6, 4})).y), 1e-6);
  EXPECT_THROW(fused::swiglu_forward(torch::ones({2, 5})), c10::Error);
  EXPECT_THROW(fused::swiglu_backward(torch::ones({2, 4}), torch::ones({2, 6})), c10::Error);
}

}  // namespace
}  // namespace stepscope
