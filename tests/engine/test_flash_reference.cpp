// The tiled FlashAttention-2 reference (and flash attention on the CPU) against naive
// attention: values, logsumexp and gradients in fp32, for odd and unequal lengths, causal or not.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "attention/flash_attention.h"
#include "attention/flash_reference.h"
#include "attention/naive_attention.h"
#include "core/config_error.h"

using namespace stepscope;

namespace {

struct Shape {
  int64_t batch, heads, seq_q, seq_k, d;
};

// Shapes the tiles do not divide, a single position, queries longer and shorter than keys.
const Shape kShapes[] = {{2, 3, 17, 17, 16}, {1, 2, 100, 37, 32}, {2, 1, 37, 300, 64},
                         {1, 1, 1, 1, 8},    {1, 2, 129, 129, 128}, {3, 1, 64, 64, 24}};

struct Inputs {
  torch::Tensor q, k, v, d_o;
};

Inputs random_inputs(const Shape& s, uint64_t seed) {
  torch::manual_seed(seed);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  return {torch::randn({s.batch, s.heads, s.seq_q, s.d}, opts), torch::randn({s.batch, s.heads, s.seq_k, s.d}, opts),
          torch::randn({s.batch, s.heads, s.seq_k, s.d}, opts), torch::randn({s.batch, s.heads, s.seq_q, s.d}, opts)};
}

struct Passes {
  torch::Tensor o, dq, dk, dv;
};

template <class Attend>
Passes run(const Inputs& in, Attend attend) {
  auto q = in.q.clone().requires_grad_(true), k = in.k.clone().requires_grad_(true),
       v = in.v.clone().requires_grad_(true);
  auto o = attend(q, k, v);
  o.backward(in.d_o);
  return {o.detach(), q.grad(), k.grad(), v.grad()};
}

// The logsumexp straight from its definition, in double.
torch::Tensor logsumexp_by_definition(const Inputs& in, bool causal) {
  auto s = torch::matmul(in.q.to(torch::kFloat64), in.k.to(torch::kFloat64).transpose(-2, -1)) /
           std::sqrt(static_cast<double>(in.q.size(-1)));
  if (causal) {
    s.masked_fill_(causal_future_mask(in.q.size(-2), in.k.size(-2), in.q.device()),
                   -std::numeric_limits<double>::infinity());
  }
  return torch::logsumexp(s, -1).to(torch::kFloat32);
}

void expect_close(const torch::Tensor& actual, const torch::Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const double error = (actual - expected).abs().max().item<double>();
  const double scale = std::max(1.0, expected.abs().max().item<double>());
  EXPECT_LE(error / scale, 1e-5) << what << ": max |error| " << error;
}

}  // namespace

TEST(FlashReference, ValuesLogsumexpAndGradientsMatchNaiveAttention) {
  uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    for (bool causal : {false, true}) {
      const std::string name = "b" + std::to_string(s.batch) + " h" + std::to_string(s.heads) + " q" +
                               std::to_string(s.seq_q) + " k" + std::to_string(s.seq_k) + " d" + std::to_string(s.d) +
                               (causal ? " causal" : "");
      const Inputs in = random_inputs(s, seed++);
      const auto naive = run(in, [&](auto q, auto k, auto v) { return naive_attention(q, k, v, causal); });
      const auto forward = flash_reference_forward(in.q, in.k, in.v, causal);
      expect_close(forward.o, naive.o, name + " O");
      expect_close(forward.lse, logsumexp_by_definition(in, causal), name + " lse");
      const auto grads = flash_reference_backward(in.q, in.k, in.v, forward.o, in.d_o, forward.lse, causal);
      expect_close(grads.dq, naive.dq, name + " dQ");
      expect_close(grads.dk, naive.dk, name + " dK");
      expect_close(grads.dv, naive.dv, name + " dV");
    }
  }
}

TEST(FlashReference, TileSizeDoesNotChangeTheResult) {
  const Inputs in = random_inputs({1, 2, 150, 150, 32}, 7);
  const auto small = flash_reference_forward(in.q, in.k, in.v, true, 16);
  const auto large = flash_reference_forward(in.q, in.k, in.v, true, 128);
  expect_close(small.o, large.o, "O");
  const auto g16 = flash_reference_backward(in.q, in.k, in.v, small.o, in.d_o, small.lse, true, 16);
  const auto g128 = flash_reference_backward(in.q, in.k, in.v, large.o, in.d_o, large.lse, true, 128);
  expect_close(g16.dq, g128.dq, "dQ");
  expect_close(g16.dk, g128.dk, "dK");
  EXPECT_THROW(flash_reference_forward(in.q, in.k, in.v, false, 8), c10::Error);
}

TEST(FlashAttentionOnCpu, AutogradGivesNaiveAttentionsGradientsInThreeAndFourDimensions) {
  for (bool causal : {false, true}) {
    const Inputs four = random_inputs({2, 2, 45, 45, 16}, 11);
    const auto naive = run(four, [&](auto q, auto k, auto v) { return naive_attention(q, k, v, causal); });
    const auto flash = run(four, [&](auto q, auto k, auto v) { return flash_attention(q, k, v, causal); });
    expect_close(flash.o, naive.o, "O");
    expect_close(flash.dq, naive.dq, "dQ");
    expect_close(flash.dk, naive.dk, "dK");
    expect_close(flash.dv, naive.dv, "dV");
    // (batch, seq, d): the seeds' layout, no head dimension.
    const Inputs three{four.q.select(1, 0), four.k.select(1, 0), four.v.select(1, 0), four.d_o.select(1, 0)};
    const auto naive3 = run(three, [&](auto q, auto k, auto v) { return naive_attention(q, k, v, causal); });
    const auto flash3 = run(three, [&](auto q, auto k, auto v) { return flash_attention(q, k, v, causal); });
    expect_close(flash3.o, naive3.o, "O (b, s, d)");
    expect_close(flash3.dk, naive3.dk, "dK (b, s, d)");
  }
}

TEST(FlashAttentionOnCpu, HalfPrecisionInputsComputeInFloat32AndKeepTheirType) {
  const Inputs in = random_inputs({1, 1, 33, 33, 16}, 3);
  const auto bf = [](const torch::Tensor& t) { return t.to(torch::kBFloat16); };
  const auto result = flash_reference_forward(bf(in.q), bf(in.k), bf(in.v), true);
  EXPECT_EQ(result.o.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(result.lse.scalar_type(), torch::kFloat32);
  // Against fp32 naive attention on the same (rounded) inputs: within bf16's rounding of O.
  const auto expected = naive_attention(bf(in.q).to(torch::kFloat32), bf(in.k).to(torch::kFloat32),
                                        bf(in.v).to(torch::kFloat32), true);
  EXPECT_LE((result.o.to(torch::kFloat32) - expected).abs().max().item<double>(), 1.0 / 128);
}

TEST(FlashAttentionOnCpu, RefusesInputsItCannotTakeWithTheReason) {
  const auto t = [](std::vector<int64_t> shape) { return torch::randn(shape); };
  const auto message_of = [](auto call) {
    try {
      call();
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "d");
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of([&] { flash_attention(t({2, 8}), t({2, 8}), t({2, 8}), false); }).find("(batch, seq, d)"),
            std::string::npos);
  EXPECT_NE(message_of([&] { flash_attention(t({2, 4, 8}), t({2, 5, 8}), t({2, 6, 8}), false); })
                .find("k and v must have the same shape"),
            std::string::npos);
  EXPECT_NE(message_of([&] { flash_attention(t({2, 4, 8}), t({3, 4, 8}), t({3, 4, 8}), false); })
                .find("batch and heads"),
            std::string::npos);
  EXPECT_NE(message_of([&] { flash_attention(t({2, 4, 8}), t({2, 4, 16}), t({2, 4, 16}), false); })
                .find("same head dim"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              flash_attention(t({2, 4, 8}).to(torch::kInt32), t({2, 4, 8}).to(torch::kInt32),
                              t({2, 4, 8}).to(torch::kInt32), false);
            }).find("float32, float16 or bfloat16"),
            std::string::npos);
}
