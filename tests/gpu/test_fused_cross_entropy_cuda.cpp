// The fused LM head + cross-entropy on CUDA: the row kernel against the LibTorch reference in
// fp32, bf16 and fp16 (vocabularies of 1 to 50257, unaligned rows, out-of-range targets), then
// linear_cross_entropy against autograd through the unfused linear + mean_cross_entropy, its
// peak memory against the unfused path's at [4096, 1024] x vocab 50000 in bf16, and timings.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <torch/torch.h>
#ifdef STEPSCOPE_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "compat/torch_compat.h"
#include "model/fused/linear_cross_entropy.h"
#include "model/loss.h"

using namespace stepscope;

namespace {

bool no_gpu() { return compat::cuda_device_count() == 0; }

torch::TensorOptions cuda(torch::Dtype type) { return torch::TensorOptions().device(torch::kCUDA).dtype(type); }

// Elementwise |actual - expected| <= atol + rtol * |expected| (NaN never passes), in float64.
void expect_all_close(const torch::Tensor& actual, const torch::Tensor& expected, double rtol, double atol,
                      const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const auto a = actual.to(torch::kFloat64).cpu(), e = expected.to(torch::kFloat64).cpu();
  const auto excess = (a - e).abs() - (atol + rtol * e.abs());
  const double worst = excess.max().item<double>();
  EXPECT_TRUE(worst <= 0) << what << ": worst excess over the tolerance " << worst << " (max |error| "
                          << (a - e).abs().max().item<double>() << ")";
}

double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  const auto a64 = a.to(torch::kFloat64).cpu(), b64 = b.to(torch::kFloat64).cpu();
  return (a64 - b64).norm().item<double>() / b64.norm().item<double>();
}

// One unit in the last place of the type, relative; fp32 gets room for expf against LibTorch's
// exp and a different summation order over up to 50257 terms.
double gradient_rtol(torch::Dtype type) {
  if (type == torch::kBFloat16) return 1.0 / 128;
  if (type == torch::kFloat16) return 1.0 / 1024;
  return 2e-5;
}

// Runs the kernel (cross_entropy_rows on CUDA tensors) and the reference (LibTorch ops, same
// device) on copies of `logits` and compares losses and written gradients.
void check_rows(const torch::Tensor& logits, const torch::Tensor& targets, double scale, const std::string& name) {
  auto kernel = logits.clone();
  auto reference = logits.clone();
  auto kernel_losses = torch::full({logits.size(0)}, -7.0f, cuda(torch::kFloat32));
  auto reference_losses = torch::empty_like(kernel_losses);
  fused::cross_entropy_rows(kernel, targets, kernel_losses, scale);
  fused::cross_entropy_rows_reference(reference, targets, reference_losses, scale);
  expect_all_close(kernel_losses, reference_losses, 1e-5, 1e-5, name + " losses");
  if (scale == 0) {
    EXPECT_TRUE(torch::equal(kernel, logits)) << name << ": grad_scale 0 must leave the logits alone";
  } else {
    const double fp16_subnormal = logits.scalar_type() == torch::kFloat16 ? 6e-8 : 0.0;
    expect_all_close(kernel, reference, gradient_rtol(logits.scalar_type()), 1e-7 * std::abs(scale) + fp16_subnormal,
                     name + " gradient");
  }
}

struct LinearResult {
  torch::Tensor loss, dx, dw;
};

LinearResult fused_run(const torch::Tensor& x, const torch::Tensor& w, torch::Dtype compute, const torch::Tensor& t,
                       int64_t chunk) {
  auto xl = x.to(compute).detach().requires_grad_(true);
  auto wl = w.detach().requires_grad_(true);
  const auto cw = compute == w.scalar_type() ? wl : wl.detach().to(compute);
  auto loss = fused::linear_cross_entropy(xl, wl, cw, t, chunk);
  loss.backward();
  return {loss.detach(), xl.grad(), wl.grad()};
}

// The eager model's head: x @ W^T in the compute type (W cast from the fp32 master, as autocast
// does), mean_cross_entropy on fp32 logits (autocast runs cross-entropy in fp32).
LinearResult unfused_run(const torch::Tensor& x, const torch::Tensor& w, torch::Dtype compute, const torch::Tensor& t) {
  auto xl = x.to(compute).detach().requires_grad_(true);
  auto wl = w.detach().requires_grad_(true);
  auto loss = mean_cross_entropy(torch::matmul(xl, wl.to(compute).t()).to(torch::kFloat32), t);
  loss.backward();
  return {loss.detach(), xl.grad(), wl.grad()};
}

// The caching allocator's counters of GPU 0 (index 0 of each statistic: all pools); a CPU
// build has no allocator to ask, and no GPU to run these tests on.
#ifdef STEPSCOPE_WITH_CUDA
int64_t allocated_peak_bytes() {
  return static_cast<int64_t>(
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(0)).allocated_bytes[0].peak);
}
int64_t allocated_now_bytes() {
  return static_cast<int64_t>(
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(0)).allocated_bytes[0].current);
}
void reset_peak_bytes() { c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(0)); }
#else
int64_t allocated_peak_bytes() { return 0; }
int64_t allocated_now_bytes() { return 0; }
void reset_peak_bytes() {}
#endif

// Milliseconds per call of `fn`, after two warm-up calls.
template <class Fn>
double time_ms(Fn&& fn, int repeats) {
  fn();
  fn();
  torch::cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) fn();
  torch::cuda::synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeats;
}

}  // namespace

TEST(FusedCrossEntropyCuda, KernelMatchesTheReferenceForEveryTypeAndOddVocabularies) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  struct Shape {
    int64_t rows, vocab;
  };
  // 1024-thread blocks above 32 KiB a row (fp32 vocab 8193+, half types 16385+), 256 below;
  // vocabularies below a 16-byte pack, odd ones (a scalar tail), 50257 (GPT-2's).
  const Shape shapes[] = {{64, 10000}, {7, 50257}, {33, 1}, {5, 3}, {17, 4097}, {3, 32769}, {2, 8191}, {9, 16385}};
  int64_t seed = 0;
  for (auto type : {torch::kFloat32, torch::kBFloat16, torch::kFloat16}) {
    for (const Shape& s : shapes) {
      torch::manual_seed(++seed);
      const auto logits = (torch::randn({s.rows, s.vocab}, cuda(torch::kFloat32)) * 4).to(type);
      const auto targets = torch::randint(0, s.vocab, {s.rows}, cuda(torch::kLong));
      for (double scale : {0.0, 1.0 / static_cast<double>(s.rows), -3.0}) {
        check_rows(logits, targets, scale,
                   std::string(c10::toString(type)) + " " + std::to_string(s.rows) + "x" + std::to_string(s.vocab) +
                       " scale " + std::to_string(scale));
      }
      // The same rows inside a wider buffer: an odd row stride and an unaligned start, so the
      // kernel walks a scalar head before its 16-byte packs; the padding must stay untouched.
      auto padded = (torch::randn({s.rows, s.vocab + 5}, cuda(torch::kFloat32)) * 4).to(type);
      padded.narrow(1, 1, s.vocab).copy_(logits);
      const auto before = padded.clone();
      auto view = padded.narrow(1, 1, s.vocab);
      auto losses = torch::empty({s.rows}, cuda(torch::kFloat32));
      fused::cross_entropy_rows(view, targets, losses, 0.5);
      auto reference = logits.clone();
      auto reference_losses = torch::empty_like(losses);
      fused::cross_entropy_rows_reference(reference, targets, reference_losses, 0.5);
      const std::string name = std::string(c10::toString(type)) + " padded " + std::to_string(s.vocab);
      expect_all_close(losses, reference_losses, 1e-5, 1e-5, name + " losses");
      expect_all_close(padded.narrow(1, 1, s.vocab), reference, gradient_rtol(type),
                       5e-8 + (type == torch::kFloat16 ? 6e-8 : 0.0), name + " gradient");
      EXPECT_TRUE(torch::equal(padded.narrow(1, 0, 1), before.narrow(1, 0, 1))) << name;
      EXPECT_TRUE(torch::equal(padded.narrow(1, s.vocab + 1, 4), before.narrow(1, s.vocab + 1, 4))) << name;
    }
  }
}

TEST(FusedCrossEntropyCuda, OutOfRangeTargetsGiveNanRowsNotACrash) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(7);
  const int64_t vocab = 10000;
  const auto targets = torch::tensor({int64_t{17}, int64_t{-1}, vocab, std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max(), vocab - 1})
                           .to(torch::kCUDA);
  const std::vector<bool> valid = {true, false, false, false, false, true};
  for (auto type : {torch::kFloat32, torch::kBFloat16}) {
    const auto logits = torch::randn({6, vocab}, cuda(type));
    auto work = logits.clone();
    auto losses = torch::empty({6}, cuda(torch::kFloat32));
    fused::cross_entropy_rows(work, targets, losses, 0.25);
    torch::cuda::synchronize();  // a fault would surface here
    auto reference = logits.clone();
    auto reference_losses = torch::empty_like(losses);
    fused::cross_entropy_rows_reference(reference, targets, reference_losses, 0.25);
    const auto l = losses.cpu();
    for (int64_t r = 0; r < 6; ++r) {
      const std::string name = std::string(c10::toString(type)) + " row " + std::to_string(r);
      if (valid[static_cast<size_t>(r)]) {
        EXPECT_NEAR(l[r].item<double>(), reference_losses[r].item<double>(), 1e-4) << name;
        expect_all_close(work[r], reference[r], gradient_rtol(type), 1e-8, name);
      } else {
        EXPECT_TRUE(std::isnan(l[r].item<double>())) << name;
        EXPECT_TRUE(work[r].isnan().all().item<bool>()) << name;
        EXPECT_TRUE(reference[r].isnan().all().item<bool>()) << name << " (reference)";
      }
    }
  }
  // The context is healthy afterwards.
  EXPECT_EQ(torch::ones({4}, cuda(torch::kFloat32)).sum().item<double>(), 4.0);
}

TEST(FusedCrossEntropyCuda, LinearCrossEntropyMatchesTheUnfusedAutograd) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  struct Case {
    int64_t rows, d, vocab;
  };
  const Case cases[] = {{300, 64, 1001}, {1, 32, 10000}, {257, 128, 10000}};
  int64_t seed = 30;
  for (const Case& c : cases) {
    torch::manual_seed(++seed);
    const auto x = torch::randn({c.rows, c.d}, cuda(torch::kFloat32));
    const auto w = torch::randn({c.vocab, c.d}, cuda(torch::kFloat32)) * 0.1;
    const auto t = torch::randint(0, c.vocab, {c.rows}, cuda(torch::kLong));
    const auto truth = unfused_run(x, w, torch::kFloat32, t);
    // Relative error norms: fp32 against LibTorch's own fp32 path; bf16 against both the eager
    // mixed-precision path and the fp32 truth on the same inputs; fp16 against the truth only:
    // eager fp16 casts (softmax - one_hot) / rows to fp16, where the non-target entries
    // (~1e-4 / rows) sink to fp16's subnormals, while the fused path keeps them unscaled.
    for (auto type : {torch::kFloat32, torch::kBFloat16, torch::kFloat16}) {
      const auto eager = unfused_run(x, w, type, t);
      const double tol = type == torch::kFloat32 ? 1e-4 : 2e-2;
      const double truth_tol = type == torch::kFloat32 ? 1e-4 : type == torch::kFloat16 ? 1e-2 : 4e-2;
      const double loss_tol = type == torch::kFloat32 ? 1e-5 : 2e-4;
      for (int64_t chunk : {int64_t{0}, int64_t{128}, int64_t{77}}) {
        const std::string name = std::string(c10::toString(type)) + " " + std::to_string(c.rows) + "x" +
                                 std::to_string(c.d) + " vocab " + std::to_string(c.vocab) + " chunk " +
                                 std::to_string(chunk);
        const auto got = fused_run(x, w, type, t, chunk);
        EXPECT_EQ(got.dx.scalar_type(), type) << name;
        EXPECT_EQ(got.dw.scalar_type(), torch::kFloat32) << name;
        EXPECT_NEAR(got.loss.item<double>(), eager.loss.item<double>(), loss_tol * eager.loss.item<double>()) << name;
        if (type != torch::kFloat16) {
          EXPECT_LT(relative_error(got.dx, eager.dx), tol) << name << " dx vs eager";
          EXPECT_LT(relative_error(got.dw, eager.dw), tol) << name << " dW vs eager";
        }
        EXPECT_LT(relative_error(got.dx, truth.dx), truth_tol) << name << " dx vs fp32";
        EXPECT_LT(relative_error(got.dw, truth.dw), truth_tol) << name << " dW vs fp32";
      }
    }
  }
}

TEST(FusedCrossEntropyCuda, PeakMemoryIsBelowTheUnfusedPathsAndTimings) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  const int64_t rows = 4096, d = 1024, vocab = 50000;
  torch::manual_seed(40);
  const auto x = torch::randn({rows, d}, cuda(torch::kBFloat16));
  const auto master = (torch::randn({vocab, d}, cuda(torch::kFloat32)) * 0.02).requires_grad_(true);
  const auto compute_weight = master.detach().to(torch::kBFloat16);
  const auto t = torch::randint(0, vocab, {rows}, cuda(torch::kLong));

  // Forward and backward of each path; the peak above what was allocated before it, with the
  // gradients of the previous run dropped.
  const auto fused_step = [&] {
    auto xl = x.detach().requires_grad_(true);
    master.mutable_grad() = torch::Tensor();
    fused::linear_cross_entropy(xl, master, compute_weight, t).backward();
  };
  const auto unfused_step = [&] {
    auto xl = x.detach().requires_grad_(true);
    master.mutable_grad() = torch::Tensor();
    auto logits = torch::matmul(xl, master.to(torch::kBFloat16).t());
    mean_cross_entropy(logits.to(torch::kFloat32), t).backward();
  };
  const auto peak_of = [&](const auto& step) {
    master.mutable_grad() = torch::Tensor();
    torch::cuda::synchronize();
    const int64_t base = allocated_now_bytes();
    reset_peak_bytes();
    step();
    torch::cuda::synchronize();
    return allocated_peak_bytes() - base;
  };
  const int64_t fused_peak = peak_of(fused_step);
  const int64_t unfused_peak = peak_of(unfused_step);
  const double mib = 1024.0 * 1024.0;
  std::printf("[ linear CE ] [4096, 1024] x vocab 50000 bf16, fwd+bwd peak above inputs: fused %.0f MiB, unfused %.0f MiB\n",
              static_cast<double>(fused_peak) / mib, static_cast<double>(unfused_peak) / mib);
  EXPECT_LT(fused_peak, unfused_peak);
  // The fp32 logits alone (4096 x 50000 x 4 bytes, 781 MiB) never exist in the fused path.
  EXPECT_LT(fused_peak, rows * vocab * 4);

  const double fused_ms = time_ms(fused_step, 5);
  const double unfused_ms = time_ms(unfused_step, 5);
  std::printf("[ linear CE ] fwd+bwd: fused %.3f ms, unfused %.3f ms\n", fused_ms, unfused_ms);

  // The row kernel alone: reads each logit, writes its gradient (the second read should hit L2).
  auto logits = torch::randn({rows, vocab}, cuda(torch::kBFloat16));
  auto losses = torch::empty({rows}, cuda(torch::kFloat32));
  for (double scale : {0.0, 1.0 / rows}) {
    const double ms = time_ms([&] { fused::cross_entropy_rows(logits, t, losses, scale); }, 10);
    const double bytes = static_cast<double>(rows) * vocab * 2 * (scale == 0 ? 1 : 2) + rows * 12.0;
    std::printf("[ CE rows   ] [4096, 50000] bf16 %s: %.3f ms, %.0f GB/s of %.0f MB moved\n",
                scale == 0 ? "loss only" : "loss + gradient", ms, bytes / ms / 1e6, bytes / 1e6);
  }
}
