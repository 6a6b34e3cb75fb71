// The fused LM head + cross-entropy on the CPU (its LibTorch reference): the row op against
// log_softmax / nll and their autograd gradient, in fp32, bf16 and fp16, odd vocabularies,
// strided logits and out-of-range targets; linear_cross_entropy's loss and gradients against
// autograd through linear + mean_cross_entropy (model/loss.h) for many chunkings, and in bf16 with
// an fp32 master against the autocast-like eager path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/config_error.h"
#include "model/fused/linear_cross_entropy.h"
#include "model/loss.h"
#include "test_support.h"

using namespace stepscope;
using stepscope::testing::relative_error;

namespace {

// Elementwise |actual - expected| <= atol + rtol * |expected| (NaN never passes), in float64.
void expect_all_close(const torch::Tensor& actual, const torch::Tensor& expected, double rtol, double atol,
                      const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const auto a = actual.to(torch::kFloat64), e = expected.to(torch::kFloat64);
  const auto excess = (a - e).abs() - (atol + rtol * e.abs());
  const double worst = excess.max().item<double>();
  EXPECT_TRUE(worst <= 0) << what << ": worst excess over the tolerance " << worst << " (max |error| "
                          << (a - e).abs().max().item<double>() << ")";
}

// Round-off of one element of `type` relative to its value.
double unit_roundoff(torch::Dtype type) {
  if (type == torch::kBFloat16) return 1.0 / 128;
  if (type == torch::kFloat16) return 1.0 / 1024;
  // fp32: exp(x - lse) carries the rounding of x - lse (|x - lse| up to ~40 here), ~5e-6.
  return 1e-5;
}

struct RowsExpected {
  torch::Tensor losses, grad;  // fp32
};

// Independent of the op: autograd through log_softmax and a gather, in float64 (the truth the
// fp32 arithmetic is held to).
RowsExpected rows_expected(const torch::Tensor& logits, const torch::Tensor& targets, double grad_scale) {
  auto lf = logits.to(torch::kFloat64).detach().requires_grad_(true);
  const auto nll = -torch::log_softmax(lf, 1).gather(1, targets.unsqueeze(1)).squeeze(1);
  (nll.sum() * grad_scale).backward();
  return {nll.detach(), lf.grad()};
}

torch::Tensor random_targets(int64_t rows, int64_t vocab) { return torch::randint(0, vocab, {rows}, torch::kLong); }

struct LinearResult {
  torch::Tensor loss, dx, dw;
};

// The fused op on fresh leaves; dx/dw undefined where no gradient was asked for.
LinearResult fused_run(const torch::Tensor& x, const torch::Tensor& w, torch::Dtype compute, const torch::Tensor& t,
                   int64_t chunk, double grad_output = 1.0) {
  auto xl = x.to(compute).detach().requires_grad_(true);
  auto wl = w.detach().requires_grad_(true);
  const auto cw = compute == w.scalar_type() ? wl : wl.detach().to(compute);
  auto loss = fused::linear_cross_entropy(xl, wl, cw, t, chunk);
  (loss * grad_output).backward();
  return {loss.detach(), xl.grad(), wl.grad()};
}

// The unfused formula under autograd: x @ W^T in the compute type (W cast from the master, as
// autocast does), then mean_cross_entropy on fp32 logits.
LinearResult unfused_run(const torch::Tensor& x, const torch::Tensor& w, torch::Dtype compute, const torch::Tensor& t,
                     double grad_output = 1.0) {
  auto xl = x.to(compute).detach().requires_grad_(true);
  auto wl = w.detach().requires_grad_(true);
  const auto logits = torch::matmul(xl, wl.to(compute).t());
  auto loss = mean_cross_entropy(logits.to(torch::kFloat32), t);
  (loss * grad_output).backward();
  return {loss.detach(), xl.grad(), wl.grad()};
}

bool cpu_half_matmul_works() {
  try {
    (void)torch::mm(torch::ones({2, 2}, torch::kFloat16), torch::ones({2, 2}, torch::kFloat16));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

TEST(FusedCrossEntropyRows, ReferenceMatchesLogSoftmaxNllAndItsGradient) {
  struct Shape {
    int64_t rows, vocab;
  };
  const Shape shapes[] = {{5, 37}, {1, 1}, {3, 1}, {1, 2}, {4, 101}, {6, 10000}, {2, 4097}};
  int64_t seed = 0;
  for (auto type : {torch::kFloat32, torch::kBFloat16, torch::kFloat16}) {
    for (const Shape& s : shapes) {
      for (double scale : {0.0, 0.25, -1.5}) {
        const std::string name = std::string(c10::toString(type)) + " " + std::to_string(s.rows) + "x" +
                                 std::to_string(s.vocab) + " scale " + std::to_string(scale);
        torch::manual_seed(++seed);
        const auto logits = (torch::randn({s.rows, s.vocab}) * 4).to(type);
        const auto targets = random_targets(s.rows, s.vocab);
        const auto expected = rows_expected(logits, targets, scale == 0 ? 1.0 : scale);
        for (bool dispatch : {true, false}) {
          auto work = logits.clone();
          auto losses = torch::full({s.rows}, -7.0f);
          if (dispatch) {
            fused::cross_entropy_rows(work, targets, losses, scale);
          } else {
            fused::cross_entropy_rows_reference(work, targets, losses, scale);
          }
          // The reference reads the logits as stored, so only fp32 arithmetic separates it from
          // log_softmax.
          expect_all_close(losses, expected.losses, 1e-6, 1e-5, name + " losses");
          EXPECT_EQ(work.scalar_type(), type);
          if (scale == 0) {
            EXPECT_TRUE(torch::equal(work, logits)) << name << ": grad_scale 0 must leave the logits alone";
          } else {
            // Both round fp32 values of the same gradient to the logits' type: one unit apart at most.
            const double fp16_subnormal = type == torch::kFloat16 ? 6e-8 : 0.0;
            expect_all_close(work, expected.grad, unit_roundoff(type), 1e-7 + fp16_subnormal, name + " gradient");
          }
        }
      }
    }
  }
}

TEST(FusedCrossEntropyRows, MeanOfTheLossesIsMeanCrossEntropy) {
  torch::manual_seed(3);
  for (auto type : {torch::kFloat32, torch::kBFloat16}) {
    const auto logits = (torch::randn({23, 509}) * 3).to(type);
    const auto targets = random_targets(23, 509);
    auto work = logits.clone();
    auto losses = torch::empty({23});
    fused::cross_entropy_rows(work, targets, losses, 0.0);
    const double ours = losses.mean().item<double>();
    const double reference = mean_cross_entropy(logits.to(torch::kFloat32), targets).item<double>();
    EXPECT_NEAR(ours, reference, 1e-6 * std::abs(reference)) << c10::toString(type);
  }
}

TEST(FusedCrossEntropyRows, OutOfRangeTargetsGiveNanRowsAndLeaveTheOthersAlone) {
  torch::manual_seed(4);
  const int64_t rows = 6, vocab = 19;
  const auto logits = torch::randn({rows, vocab});
  const auto targets = torch::tensor({int64_t{3}, int64_t{-1}, vocab, int64_t{0}, std::numeric_limits<int64_t>::min(),
                                      vocab - 1});
  const std::vector<bool> valid = {true, false, false, true, false, true};
  auto work = logits.clone();
  auto losses = torch::empty({rows});
  fused::cross_entropy_rows(work, targets, losses, 0.5);
  const auto expected = rows_expected(logits, targets.clamp(0, vocab - 1), 0.5);
  for (int64_t r = 0; r < rows; ++r) {
    if (valid[static_cast<size_t>(r)]) {
      EXPECT_NEAR(losses[r].item<double>(), expected.losses[r].item<double>(), 1e-5) << "row " << r;
      expect_all_close(work[r], expected.grad[r], 1e-5, 1e-7, "row " + std::to_string(r));
    } else {
      EXPECT_TRUE(std::isnan(losses[r].item<double>())) << "row " << r;
      EXPECT_TRUE(work[r].isnan().all().item<bool>()) << "row " << r;
    }
  }
}

TEST(FusedCrossEntropyRows, StridedLogitsAreWrittenInPlaceAndNothingElse) {
  torch::manual_seed(5);
  const int64_t rows = 4, vocab = 29;
  // Rows inside a wider buffer (an odd row stride, an unaligned start), then a transposed view.
  const auto base = torch::randn({rows, vocab + 3});
  auto padded = base.clone();
  auto view = padded.narrow(1, 1, vocab);
  const auto targets = random_targets(rows, vocab);
  const auto expected = rows_expected(view, targets, 2.0);
  auto losses = torch::empty({rows});
  fused::cross_entropy_rows(view, targets, losses, 2.0);
  expect_all_close(losses, expected.losses, 1e-6, 1e-5, "padded losses");
  expect_all_close(padded.narrow(1, 1, vocab), expected.grad, 1e-5, 1e-7, "padded gradient");
  EXPECT_TRUE(torch::equal(padded.narrow(1, 0, 1), base.narrow(1, 0, 1)));
  EXPECT_TRUE(torch::equal(padded.narrow(1, vocab + 1, 2), base.narrow(1, vocab + 1, 2)));

  auto columns = torch::randn({vocab, rows});
  auto transposed = columns.t();
  const auto expected_t = rows_expected(transposed, targets, 2.0);
  fused::cross_entropy_rows(transposed, targets, losses, 2.0);
  expect_all_close(losses, expected_t.losses, 1e-6, 1e-5, "transposed losses");
  expect_all_close(columns.t(), expected_t.grad, 1e-5, 1e-7, "transposed gradient");
}

TEST(FusedCrossEntropyRows, RefusesArgumentsItCannotTake) {
  auto logits = torch::randn({3, 5});
  auto losses = torch::empty({3});
  const auto targets = torch::zeros({3}, torch::kLong);
  auto logits3 = torch::randn({1, 3, 5});
  EXPECT_THROW(fused::cross_entropy_rows(logits3, targets, losses, 1.0), ConfigError);
  EXPECT_THROW(fused::cross_entropy_rows(logits, targets.to(torch::kInt32), losses, 1.0), ConfigError);
  EXPECT_THROW(fused::cross_entropy_rows(logits, torch::zeros({4}, torch::kLong), losses, 1.0), ConfigError);
  auto wrong_losses = torch::empty({3}, torch::kFloat64);
  EXPECT_THROW(fused::cross_entropy_rows(logits, targets, wrong_losses, 1.0), ConfigError);
  auto doubles = torch::randn({3, 5}, torch::kFloat64);
  EXPECT_THROW(fused::cross_entropy_rows(doubles, targets, losses, 1.0), ConfigError);
  auto empty_vocab = torch::randn({3, 0});
  EXPECT_THROW(fused::cross_entropy_rows(empty_vocab, targets, losses, 1.0), ConfigError);
}

TEST(FusedLinearCrossEntropy, Fp32LossAndGradientsMatchAutogradForEveryChunking) {
  struct Case {
    int64_t rows, d, vocab;
  };
  const Case cases[] = {{13, 16, 37}, {1, 8, 5}, {1, 4, 1}, {64, 24, 1001}};
  int64_t seed = 10;
  for (const Case& c : cases) {
    torch::manual_seed(++seed);
    const auto x = torch::randn({c.rows, c.d});
    const auto w = torch::randn({c.vocab, c.d}) * 0.3;
    const auto t = random_targets(c.rows, c.vocab);
    const auto ref = unfused_run(x, w, torch::kFloat32, t);
    for (int64_t chunk : {int64_t{0}, int64_t{1}, int64_t{4}, int64_t{5}, c.rows, c.rows + 7}) {
      const std::string name = std::to_string(c.rows) + "x" + std::to_string(c.d) + " vocab " +
                               std::to_string(c.vocab) + " chunk " + std::to_string(chunk);
      const auto got = fused_run(x, w, torch::kFloat32, t, chunk);
      EXPECT_EQ(got.loss.dim(), 0) << name;
      EXPECT_EQ(got.loss.scalar_type(), torch::kFloat32) << name;
      EXPECT_NEAR(got.loss.item<double>(), ref.loss.item<double>(), 1e-6 * std::abs(ref.loss.item<double>()) + 1e-7)
          << name;
      ASSERT_TRUE(got.dx.defined() && got.dw.defined()) << name;
      if (c.vocab > 1) {
        EXPECT_LT(relative_error(got.dx, ref.dx), 1e-5) << name;
        EXPECT_LT(relative_error(got.dw, ref.dw), 1e-5) << name;
      } else {
        EXPECT_LT(got.dw.abs().max().item<double>(), 1e-7) << name;  // one class: zero gradient
        EXPECT_LT(got.dx.abs().max().item<double>(), 1e-7) << name;
      }
    }
  }
}

TEST(FusedLinearCrossEntropy, LeadingDimensionsAreRowsAndGradientsKeepTheirShape) {
  torch::manual_seed(20);
  const auto x = torch::randn({3, 5, 8});
  const auto w = torch::randn({11, 8});
  const auto t = torch::randint(0, 11, {3, 5}, torch::kLong);
  const auto ref = unfused_run(x, w, torch::kFloat32, t);
  const auto got = fused_run(x, w, torch::kFloat32, t, 4);
  EXPECT_EQ(got.dx.sizes(), x.sizes());
  EXPECT_NEAR(got.loss.item<double>(), ref.loss.item<double>(), 1e-6);
  EXPECT_LT(relative_error(got.dx, ref.dx), 1e-5);
  EXPECT_LT(relative_error(got.dw, ref.dw), 1e-5);
}

TEST(FusedLinearCrossEntropy, Bf16ComputeWithAnFp32MasterMatchesTheAutocastPath) {
  torch::manual_seed(21);
  const int64_t rows = 96, d = 40, vocab = 515;
  const auto x = torch::randn({rows, d});
  const auto w = torch::randn({vocab, d}) * 0.2;
  const auto t = random_targets(rows, vocab);
  const auto eager = unfused_run(x, w, torch::kBFloat16, t);
  const auto exact = unfused_run(x.to(torch::kBFloat16).to(torch::kFloat32), w, torch::kFloat32, t);
  for (int64_t chunk : {int64_t{0}, int64_t{7}, int64_t{50}}) {
    const auto got = fused_run(x, w, torch::kBFloat16, t, chunk);
    const std::string name = "chunk " + std::to_string(chunk);
    EXPECT_EQ(got.loss.scalar_type(), torch::kFloat32);
    EXPECT_EQ(got.dx.scalar_type(), torch::kBFloat16);
    EXPECT_EQ(got.dw.scalar_type(), torch::kFloat32);
    // Same bf16 logits, fp32 statistics: the losses agree to fp32 summation order.
    EXPECT_NEAR(got.loss.item<double>(), eager.loss.item<double>(), 1e-5 * eager.loss.item<double>()) << name;
    // Both round d loss / d logits to bf16 before the matmuls (within a unit of each other) and
    // round the matmuls' outputs to bf16; chunks sum dW in fp32, which only helps.
    EXPECT_LT(relative_error(got.dx, eager.dx), 1e-2) << name;
    EXPECT_LT(relative_error(got.dw, eager.dw), 1e-2) << name;
    // And both stay within bf16's reach of the fp32 truth on the same (bf16-rounded) inputs.
    EXPECT_LT(relative_error(got.dx, exact.dx), 2e-2) << name;
    EXPECT_LT(relative_error(got.dw, exact.dw), 2e-2) << name;
    EXPECT_LT(std::abs(got.loss.item<double>() - exact.loss.item<double>()), 1e-2 * exact.loss.item<double>()) << name;
  }
}

TEST(FusedLinearCrossEntropy, Fp16KeepsSmallGradientsThatASixteenBitOneOverRowsWouldFlush) {
  if (!cpu_half_matmul_works()) GTEST_SKIP() << "this LibTorch has no fp16 matmul on the CPU";
  torch::manual_seed(22);
  // Near-uniform softmax over 4000 classes and 512 rows: (softmax / rows) ~ 5e-7 is near fp16's
  // subnormal floor, so the gradient is written unscaled and 1/rows applied in the backward.
  const int64_t rows = 512, d = 16, vocab = 4000;
  const auto x = torch::randn({rows, d});
  const auto w = torch::randn({vocab, d}) * 0.01;
  const auto t = random_targets(rows, vocab);
  const auto exact = unfused_run(x.to(torch::kFloat16).to(torch::kFloat32), w.to(torch::kFloat16).to(torch::kFloat32),
                             torch::kFloat32, t);
  const auto got = fused_run(x, w.to(torch::kFloat16).to(torch::kFloat32), torch::kFloat16, t, 0);
  EXPECT_LT(relative_error(got.dw, exact.dw), 5e-3);
  EXPECT_LT(relative_error(got.dx, exact.dx), 5e-3);
}

TEST(FusedLinearCrossEntropy, TheBackwardScalesByTheIncomingGradient) {
  torch::manual_seed(23);
  const auto x = torch::randn({9, 6});
  const auto w = torch::randn({17, 6});
  const auto t = random_targets(9, 17);
  for (int64_t chunk : {int64_t{0}, int64_t{4}}) {
    const auto ref = unfused_run(x, w, torch::kFloat32, t, -2.5);
    const auto got = fused_run(x, w, torch::kFloat32, t, chunk, -2.5);
    EXPECT_LT(relative_error(got.dx, ref.dx), 1e-5);
    EXPECT_LT(relative_error(got.dw, ref.dw), 1e-5);
  }
  // The gradients are handed over by the first backward: a second one says so.
  auto xl = x.clone().requires_grad_(true);
  auto wl = w.clone().requires_grad_(true);
  auto loss = fused::linear_cross_entropy(xl, wl, wl, t);
  loss.backward({}, /*retain_graph=*/true);
  EXPECT_ANY_THROW(loss.backward());
}

TEST(FusedLinearCrossEntropy, OnlyInputsThatNeedAGradientGetOne) {
  torch::manual_seed(24);
  const auto x = torch::randn({7, 5});
  const auto w = torch::randn({13, 5});
  const auto t = random_targets(7, 13);
  const auto ref = unfused_run(x, w, torch::kFloat32, t);
  {
    auto xl = x.clone().requires_grad_(true);
    const auto wd = w.clone();
    fused::linear_cross_entropy(xl, wd, wd, t, 3).backward();
    EXPECT_LT(relative_error(xl.grad(), ref.dx), 1e-5);
    EXPECT_FALSE(wd.grad().defined());
  }
  {
    const auto xd = x.clone();
    auto wl = w.clone().requires_grad_(true);
    fused::linear_cross_entropy(xd, wl, wl, t, 3).backward();
    EXPECT_LT(relative_error(wl.grad(), ref.dw), 1e-5);
  }
  {
    auto xl = x.clone().requires_grad_(true);
    auto wl = w.clone().requires_grad_(true);
    const torch::NoGradGuard no_grad;
    const auto loss = fused::linear_cross_entropy(xl, wl, wl, t);
    EXPECT_FALSE(loss.requires_grad());
    EXPECT_NEAR(loss.item<double>(), ref.loss.item<double>(), 1e-6);
  }
}

TEST(FusedLinearCrossEntropy, DefaultChunksKeepEachChunksLogitsWithin256MiB) {
  EXPECT_EQ(fused::linear_cross_entropy_chunk_rows(4096, 10000, 2), 4096);  // the seeds' shapes: one chunk
  EXPECT_EQ(fused::linear_cross_entropy_chunk_rows(1024, 10000, 4), 1024);
  EXPECT_EQ(fused::linear_cross_entropy_chunk_rows(4096, 50000, 2), 2048);
  EXPECT_EQ(fused::linear_cross_entropy_chunk_rows(4096, 50000, 4), 1024);
  EXPECT_EQ(fused::linear_cross_entropy_chunk_rows(5, int64_t{1} << 30, 4), 1);
  EXPECT_EQ(fused::linear_cross_entropy_chunk_rows(0, 100, 4), 1);
  for (int64_t rows : {1, 77, 4096, 100000}) {
    for (int64_t vocab : {1, 10000, 50257, 262144}) {
      const int64_t chunk = fused::linear_cross_entropy_chunk_rows(rows, vocab, 2);
      EXPECT_GE(chunk, 1);
      EXPECT_LE(chunk, rows);
      EXPECT_LE(chunk * vocab * 2, int64_t{256} << 20) << rows << " rows, vocab " << vocab;
    }
  }
}

TEST(FusedLinearCrossEntropy, RefusesInputsThatDoNotFit) {
  const auto x = torch::randn({4, 6});
  const auto w = torch::randn({9, 6});
  const auto t = torch::zeros({4}, torch::kLong);
  EXPECT_THROW(fused::linear_cross_entropy(x, torch::randn({9, 5}), torch::randn({9, 5}), t), ConfigError);
  EXPECT_THROW(fused::linear_cross_entropy(x, w, w.to(torch::kBFloat16), t), ConfigError);
  EXPECT_THROW(fused::linear_cross_entropy(x, w, w, torch::zeros({5}, torch::kLong)), ConfigError);
  EXPECT_THROW(fused::linear_cross_entropy(x, w, w, t.to(torch::kInt32)), ConfigError);
  EXPECT_THROW(fused::linear_cross_entropy(x, w, torch::randn({8, 6}), t), ConfigError);
}
