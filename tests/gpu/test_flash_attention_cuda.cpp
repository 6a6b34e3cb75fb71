// The FlashAttention-2 CUDA kernels through LibTorch (the path the sweep and the model take):
// O and the gradients against naive attention in fp32 on the same inputs, every supported
// head dim class, odd and unequal lengths, both layouts; the sweep and the model with flash.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "core/config_error.h"
#include "attention/attend.h"
#include "attention/flash_attention.h"
#include "attention/naive_attention.h"
#include "compat/torch_compat.h"
#include "experiments/attention/attention_sweep.h"
#include "experiments/bench/step_benchmark.h"

using namespace stepscope;

namespace {

bool no_gpu() { return compat::cuda_device_count() == 0; }

struct Passes {
  torch::Tensor o, dq, dk, dv;
};

Passes passes(AttentionImpl impl, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
              const torch::Tensor& d_o, bool causal) {
  auto ql = q.detach().requires_grad_(true), kl = k.detach().requires_grad_(true), vl = v.detach().requires_grad_(true);
  auto o = attend(impl, ql, kl, vl, causal);
  o.backward(d_o);
  return {o.detach(), ql.grad(), kl.grad(), vl.grad()};
}

// Relative to the reference's largest magnitude: fp32 to 5e-5 (O; the GPU runs fp32 in 3xTF32,
// products exact to ~2^-21) and 1e-4 (gradients); half types within a few units of their last
// place.
double tolerance(torch::Dtype type, bool gradient) {
  if (type == torch::kFloat32) return gradient ? 1e-4 : 5e-5;
  if (type == torch::kFloat16) return gradient ? 1e-2 : 2e-3;
  return gradient ? 5e-2 : 1.6e-2;
}

void expect_close(const torch::Tensor& actual, const torch::Tensor& expected, double tol, const std::string& what) {
  const auto a = actual.to(torch::kFloat32), e = expected.to(torch::kFloat32);
  const double error = (a - e).abs().max().item<double>();
  // At least 1: with one key, softmax is exactly 1 and dQ, dK are rounding noise around zero.
  const double scale = std::max(1.0, e.abs().max().item<double>());
  EXPECT_LE(error / scale, tol) << what << ": max |error| " << error << " of " << scale;
}

}  // namespace

TEST(FlashAttentionCuda, MatchesNaiveFp32ForEveryTypeHeadDimAndOddLengths) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  struct Shape {
    int64_t batch, heads, seq_q, seq_k, d;
  };
  const Shape shapes[] = {{2, 3, 77, 77, 16}, {1, 2, 130, 45, 32}, {1, 2, 45, 300, 64}, {2, 2, 257, 257, 128},
                          {1, 1, 1, 1, 64},   {1, 4, 200, 200, 40}, {1, 2, 96, 96, 96}};
  int64_t seed = 0;
  for (auto type : {torch::kFloat32, torch::kFloat16, torch::kBFloat16}) {
    for (const Shape& s : shapes) {
      for (bool causal : {false, true}) {
        const std::string name = std::string(c10::toString(type)) + " q" + std::to_string(s.seq_q) + " k" +
                                 std::to_string(s.seq_k) + " d" + std::to_string(s.d) + (causal ? " causal" : "");
        torch::manual_seed(++seed);
        const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(type);
        const auto q = torch::randn({s.batch, s.heads, s.seq_q, s.d}, opts);
        const auto k = torch::randn({s.batch, s.heads, s.seq_k, s.d}, opts);
        const auto v = torch::randn({s.batch, s.heads, s.seq_k, s.d}, opts);
        const auto d_o = torch::randn({s.batch, s.heads, s.seq_q, s.d}, opts);
        const auto f32 = [](const torch::Tensor& t) { return t.to(torch::kFloat32); };
        const Passes flash = passes(AttentionImpl::flash, q, k, v, d_o, causal);
        const Passes naive = passes(AttentionImpl::naive, f32(q), f32(k), f32(v), f32(d_o), causal);
        EXPECT_EQ(flash.o.scalar_type(), type);
        expect_close(flash.o, naive.o, tolerance(type, false), name + " O");
        expect_close(flash.dq, naive.dq, tolerance(type, true), name + " dQ");
        expect_close(flash.dk, naive.dk, tolerance(type, true), name + " dK");
        expect_close(flash.dv, naive.dv, tolerance(type, true), name + " dV");
      }
    }
  }
}

TEST(FlashAttentionCuda, HeadInterleavedAndThreeDimensionalInputsAndTheCpuReferenceAgree) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(5);
  // (batch, seq, heads, d) viewed as (batch, heads, seq, d): the model's layout after its projections.
  const auto x = torch::randn({2, 100, 4, 64}, torch::TensorOptions().device(torch::kCUDA));
  const auto q = x.transpose(1, 2), k = (x * 0.5).transpose(1, 2), v = (x - 1).transpose(1, 2);
  const auto gpu = flash_forward(q, k, v, true);
  const auto cpu = flash_reference_forward(q.cpu(), k.cpu(), v.cpu(), true);
  expect_close(gpu.o.cpu(), cpu.o, tolerance(torch::kFloat32, false), "O");
  expect_close(gpu.lse.cpu(), cpu.lse, 1e-5, "lse");
  const auto three = flash_forward(q.select(1, 0), k.select(1, 0), v.select(1, 0), false);
  EXPECT_EQ(three.o.dim(), 3);
  EXPECT_EQ(three.lse.dim(), 2);
  expect_close(three.o, naive_attention(q.select(1, 0), k.select(1, 0), v.select(1, 0), false),
               tolerance(torch::kFloat32, false), "(b, s, d)");
}

TEST(FlashAttentionCuda, RefusesAHeadDimTheKernelsDoNotTake) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  const auto t = torch::randn({1, 8, 136}, torch::TensorOptions().device(torch::kCUDA));
  try {
    flash_attention(t, t, t, false);
    FAIL() << "head dim 136 was taken";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("head dim 136"), std::string::npos) << e.what();
  }
}

TEST(FlashAttentionCuda, TheSweepRunsEveryImplementationAndChecksItOnTheGpu) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  AttentionSweepSpec spec;
  spec.base.batch = 2;
  spec.base.heads = 4;
  spec.base.causal = true;
  spec.base.device = Device{DeviceKind::cuda, -1};
  spec.base.warmup_steps = 2;
  spec.base.measured_steps = 5;
  spec.impls = {AttentionImpl::naive, AttentionImpl::sdpa, AttentionImpl::flash};
  spec.head_dims = {64};
  spec.seqs = {1000};
  spec.precisions = {Precision::bf16};
  std::vector<AttentionResult> results;
  // The default for three implementations: five interleaved rounds of one pass each.
  run_attention_sweep(expand(spec), sweep_rounds(spec), nullptr, nullptr,
                      [&](const AttentionResult& r) { results.push_back(r); });
  ASSERT_EQ(results.size(), size_t{3});
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r.config));
    ASSERT_EQ(r.status, RunStatus::ok) << r.message;
    EXPECT_EQ(r.timer, "cuda-events");
    EXPECT_GT(r.forward_tflops, 0);
    EXPECT_LE(r.max_abs_error, 0.1);  // bf16 inputs and outputs against fp32
    EXPECT_GT(r.memory_before_backward_bytes, 0);
  }
  // Naive keeps the 4 x 1000 x 1000 probabilities per batch element; flash keeps one number per query.
  EXPECT_GT(results[0].memory_before_backward_bytes, results[2].memory_before_backward_bytes + 2 * 4 * 1000 * 1000 * 2);
}

TEST(FlashAttentionCuda, TheModelTrainsWithFlashAndSdpaAttention) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  for (AttentionImpl impl : {AttentionImpl::flash, AttentionImpl::sdpa}) {
    BenchConfig c;
    c.model = with_context(model_preset("tiny"), 128);
    c.model.attention = impl;
    c.context = 128;
    c.batch = 2;
    c.precision = Precision::bf16;
    c.device = Device{DeviceKind::cuda, -1};
    c.warmup_steps = 1;
    c.measured_steps = 2;
    c.profile_kernels = true;
    check_runnable(c);
    const BenchResult r = run_step_benchmark(c);
    ASSERT_EQ(r.status, RunStatus::ok) << to_string(impl) << ": " << r.message;
    ASSERT_TRUE(r.kernel_profile);
  }
}
