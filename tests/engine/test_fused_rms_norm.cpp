// The fused engine's RMSNorm on the CPU (its LibTorch reference and the autograd function):
// against the eager RMSNorm module, hand values, LibTorch autograd on the unfused formula in
// fp64, and central finite differences; fp32, bf16 and odd sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <torch/torch.h>

#include "model/fused/rms_norm.h"
#include "model/layers.h"
#include "test_support.h"

namespace stepscope {
namespace {

using testing::relative_error;

constexpr double kEps = 1e-5;

// The unfused formula in fp64, differentiated by LibTorch's autograd.
struct Formula {
  torch::Tensor y, dx, dweight;
};
Formula unfused(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& dy) {
  auto x64 = x.to(torch::kFloat64).detach().requires_grad_(true);
  auto w64 = weight.to(torch::kFloat64).detach().requires_grad_(true);
  auto y = x64 * torch::rsqrt(x64.pow(2).mean(-1, true) + kEps) * w64;
  y.backward(dy.to(torch::kFloat64));
  return {y.detach(), x64.grad(), w64.grad()};
}

// max |a - e| over max(1, max |e|).
double scaled_error(const torch::Tensor& a, const torch::Tensor& e) {
  return testing::max_abs_difference(a, e) / std::max(1.0, e.to(torch::kFloat64).abs().max().item<double>());
}

const std::vector<std::vector<int64_t>> kShapes = {{3, 5, 7}, {1, 129}, {17, 1}, {2, 64}, {4, 768}, {7}};

TEST(FusedRmsNorm, ForwardMatchesTheEagerModuleInFp32AndBf16) {
  torch::manual_seed(1);
  for (auto type : {torch::kFloat32, torch::kBFloat16}) {
    RMSNorm eager(33, torch::TensorOptions().dtype(torch::kFloat32));
    torch::NoGradGuard no_grad;
    eager->weight.copy_(torch::randn({33}));
    const auto x = torch::randn({5, 3, 33}).to(type);
    const auto fused = fused::rms_norm_forward_reference(x, eager->weight, eager->eps, type);
    const auto expected = eager(x);
    ASSERT_EQ(fused.y.scalar_type(), type);
    // The same operations in the same order, so the same bits.
    EXPECT_TRUE(torch::equal(fused.y, expected));
    EXPECT_EQ(fused.inv_rms.sizes(), (std::vector<int64_t>{5, 3}));
    EXPECT_EQ(fused.inv_rms.scalar_type(), torch::kFloat32);
  }
}

TEST(FusedRmsNorm, ForwardGivesHandValues) {
  // mean(3^2, 4^2) = 12.5.
  const auto x = torch::tensor({{3.f, 4.f}, {0.f, 0.f}});
  const auto w = torch::tensor({1.f, 2.f});
  const auto out = fused::rms_norm_forward_reference(x, w, kEps, torch::kFloat32);
  const double inv = 1 / std::sqrt(12.5 + kEps);
  EXPECT_NEAR(out.inv_rms[0].item<double>(), inv, 1e-6);
  EXPECT_NEAR(out.inv_rms[1].item<double>(), 1 / std::sqrt(kEps), 1e-2);  // an all-zero row: 1/sqrt(eps)
  EXPECT_NEAR(out.y[0][0].item<double>(), 3 * inv, 1e-6);
  EXPECT_NEAR(out.y[0][1].item<double>(), 8 * inv, 1e-6);
  EXPECT_EQ(out.y[1][1].item<double>(), 0.0);
}

TEST(FusedRmsNorm, ReferenceMatchesAutogradOnTheUnfusedFormulaForOddShapes) {
  torch::manual_seed(2);
  for (const auto& shape : kShapes) {
    for (auto type : {torch::kFloat32, torch::kBFloat16}) {
      SCOPED_TRACE(std::string(c10::toString(type)) + " d " + std::to_string(shape.back()));
      const int64_t d = shape.back();
      const auto x = torch::randn(shape).to(type);
      const auto w = torch::randn({d});
      const auto dy = torch::randn(shape).to(type);
      const auto expected = unfused(x, w, dy);
      const auto out = fused::rms_norm_forward_reference(x, w, kEps, type);
      const auto grads = fused::rms_norm_backward_reference(dy, x, w, out.inv_rms);
      ASSERT_EQ(grads.dx.scalar_type(), type);
      ASSERT_EQ(grads.dweight.scalar_type(), torch::kFloat32);
      // fp32 to accumulation rounding; bf16 to a few units of its last place (2^-8).
      const double tol = type == torch::kFloat32 ? 1e-5 : 1e-2;
      EXPECT_LE(relative_error(out.y, expected.y), tol);
      if (d > 1) {
        EXPECT_LE(relative_error(grads.dx, expected.dx), tol);
      } else {
        // d = 1: dx = inv * g * eps / (x^2 + eps), near 0 where x^2 >> eps and then all
        // cancellation; measured against the largest entry instead.
        EXPECT_LE(scaled_error(grads.dx, expected.dx), tol);
      }
      EXPECT_LE(relative_error(grads.dweight, expected.dweight), type == torch::kFloat32 ? 1e-5 : 1e-3);
    }
  }
}

TEST(FusedRmsNorm, AutogradFunctionMatchesCentralFiniteDifferencesInFp64) {
  torch::manual_seed(3);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto x = torch::randn({3, 9}, f64).requires_grad_(true);
  auto w = torch::randn({9}, f64).requires_grad_(true);
  const auto r = torch::randn({3, 9}, f64);  // loss = sum(y * r)
  const auto loss = [&](const torch::Tensor& xv, const torch::Tensor& wv) {
    return (fused::rms_norm(xv, wv, kEps, torch::kFloat64) * r).sum().item<double>();
  };
  (fused::rms_norm(x, w, kEps, torch::kFloat64) * r).sum().backward();
  const double h = 1e-6;
  torch::NoGradGuard no_grad;
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto plus = x.detach().clone(), minus = x.detach().clone();
    plus.view(-1)[i] += h;
    minus.view(-1)[i] -= h;
    const double numeric = (loss(plus, w.detach()) - loss(minus, w.detach())) / (2 * h);
    EXPECT_NEAR(x.grad().view(-1)[i].item<double>(), numeric, 1e-6) << "dx[" << i << "]";
  }
  for (int64_t i = 0; i < w.numel(); ++i) {
    auto plus = w.detach().clone(), minus = w.detach().clone();
    plus[i] += h;
    minus[i] -= h;
    const double numeric = (loss(x.detach(), plus) - loss(x.detach(), minus)) / (2 * h);
    EXPECT_NEAR(w.grad()[i].item<double>(), numeric, 1e-6) << "dweight[" << i << "]";
  }
}

TEST(FusedRmsNorm, AutogradFunctionRunsTheDispatchAndKeepsDtypes) {
  torch::manual_seed(4);
  // The fused engine's case: an fp32 residual stream normalised straight into bf16, and a
  // bf16 input; the gradient reaches x in its dtype and the fp32 master weight in fp32.
  for (auto x_type : {torch::kFloat32, torch::kBFloat16}) {
    const auto x0 = torch::randn({2, 5, 48}).to(x_type);
    const auto w0 = torch::randn({48});
    auto x = x0.clone().requires_grad_(true);
    auto w = w0.clone().requires_grad_(true);
    const auto y = fused::rms_norm(x, w, kEps, torch::kBFloat16);
    ASSERT_EQ(y.scalar_type(), torch::kBFloat16);
    const auto dy = torch::randn({2, 5, 48}).to(torch::kBFloat16);
    y.backward(dy);
    const auto expected_y = fused::rms_norm_forward_reference(x0, w0, kEps, torch::kBFloat16);
    const auto expected = fused::rms_norm_backward_reference(dy, x0, w0, expected_y.inv_rms);
    EXPECT_TRUE(torch::equal(y.detach(), expected_y.y));
    ASSERT_EQ(x.grad().scalar_type(), x_type);
    ASSERT_EQ(w.grad().scalar_type(), torch::kFloat32);
    EXPECT_TRUE(torch::equal(x.grad(), expected.dx));
    EXPECT_TRUE(torch::equal(w.grad(), expected.dweight));
  }
}

TEST(FusedRmsNorm, TakesStridedInputsAndRefusesAWrongWeight) {
  torch::manual_seed(5);
  const auto x = torch::randn({6, 4}).t();  // [4, 6], not contiguous
  const auto w = torch::randn({6});
  const auto out = fused::rms_norm_forward(x, w, kEps, torch::kFloat32);
  EXPECT_LE(relative_error(out.y, unfused(x, w, torch::zeros({4, 6})).y), 1e-6);
  EXPECT_THROW(fused::rms_norm_forward(x, torch::ones({5}), kEps, torch::kFloat32), c10::Error);
  EXPECT_THROW(fused::rms_norm_backward(torch::ones({4, 5}), x, w, out.inv_rms), c10::Error);
}

}  // namespace
}  // namespace stepscope
