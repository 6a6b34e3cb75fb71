// The fused rotary attention's CPU path (what a CPU build's fused engine runs and what the
// kernels are checked against): the q/k/v rotation against the eager model's RotaryEmbedding
// module, its backward against autograd of the eager rotation and against the adjoint
// identity, and rotary_attention (flash on views of the rotated qkv) against an independent
// unfused computation (eager rope, hand-written causal softmax attention, autograd), at odd
// sequence lengths.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include <torch/torch.h>

#include "model/fused/rotary_attention.h"
#include "model/layers.h"

using namespace stepscope;

namespace {

struct Shape {
  int64_t batch, seq, heads, d_head;
  int64_t d_model() const { return heads * d_head; }
  std::string name() const {
    return "b" + std::to_string(batch) + " s" + std::to_string(seq) + " h" + std::to_string(heads) + " d" +
           std::to_string(d_head);
  }
};

// Odd lengths, a single position, a single pair per head, lengths across flash's 64-row tiles.
const Shape kRopeShapes[] = {{2, 7, 3, 8}, {1, 1, 2, 4}, {3, 33, 4, 16}, {1, 5, 1, 2}, {2, 70, 2, 6}};
constexpr int64_t kContext = 80;
constexpr double kTheta = 10000.0;

// The eager model's rotary module for heads of d_head, and its tables.
struct Rope {
  RotaryEmbedding module;
  torch::Tensor cos, sin;
  explicit Rope(int64_t d_head)
      : module(kContext, d_head, kTheta, torch::TensorOptions().dtype(torch::kFloat32)),
        cos(module->named_buffers()["cos_cache"]),
        sin(module->named_buffers()["sin_cache"]) {}
};

// Section i (0 q, 1 k, 2 v) of a [batch, seq, 3 * d_model] tensor as (batch, heads, seq, d_head).
torch::Tensor section(const torch::Tensor& qkv, const Shape& s, int64_t i) {
  return qkv.view({s.batch, s.seq, 3, s.heads, s.d_head}).select(2, i).transpose(1, 2);
}

// (batch, heads, seq, d_head) q, k, v back into one [batch, seq, 3 * d_model] tensor.
torch::Tensor join(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const Shape& s) {
  return torch::stack({q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)}, 2)
      .reshape({s.batch, s.seq, 3 * s.d_model()});
}

// The eager rotation of q and k of a qkv tensor, through the module, as a [batch, seq, 3 * d_model] tensor.
torch::Tensor eager_rope_qkv(Rope& rope, const torch::Tensor& qkv, const Shape& s) {
  return join(rope.module(section(qkv, s, 0)), rope.module(section(qkv, s, 1)), section(qkv, s, 2), s);
}

// The unfused model's attention, written out: eager rope, full scores, -inf above the
// diagonal, softmax, product with v, heads merged. Differentiable by autograd.
torch::Tensor unfused_attention(Rope& rope, const torch::Tensor& qkv, const Shape& s) {
  const auto q = rope.module(section(qkv, s, 0)), k = rope.module(section(qkv, s, 1));
  const auto v = section(qkv, s, 2);
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(s.d_head));
  const auto future = torch::ones({s.seq, s.seq}, torch::TensorOptions().dtype(torch::kBool)).triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
  return torch::matmul(torch::softmax(scores, -1), v).transpose(1, 2).reshape({s.batch, s.seq, s.d_model()});
}

double max_error_relative(const torch::Tensor& actual, const torch::Tensor& expected) {
  const auto a = actual.to(torch::kFloat64), e = expected.to(torch::kFloat64);
  return (a - e).abs().max().item<double>() / std::max(1.0, e.abs().max().item<double>());
}

// Whether autograd runs the fused function (rope kernel/reference + flash) for this output.
bool takes_the_flash_path(const torch::Tensor& out) {
  return out.grad_fn() && out.grad_fn()->name().find("RotaryAttentionFunction") != std::string::npos;
}

struct Passes {
  torch::Tensor out, d_qkv;
};

template <class Attend>
Passes run(const torch::Tensor& qkv_in, const torch::Tensor& d_out, Attend attend) {
  auto qkv = qkv_in.detach().clone().requires_grad_(true);
  auto out = attend(qkv);
  out.backward(d_out);
  return {out.detach(), qkv.grad()};
}

}  // namespace

TEST(FusedRope, ReferenceRotatesLikeTheEagerModuleBitForBit) {
  int64_t seed = 0;
  for (auto type : {torch::kFloat32, torch::kBFloat16, torch::kFloat64}) {
    for (const Shape& s : kRopeShapes) {
      const std::string name = std::string(c10::toString(type)) + " " + s.name();
      torch::manual_seed(++seed);
      Rope rope(s.d_head);
      const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()}).to(type);
      const auto out = fused::rope_qkv_forward_reference(qkv, rope.cos, rope.sin, s.heads);
      EXPECT_EQ(out.scalar_type(), type) << name;
      EXPECT_EQ(out.sizes(), qkv.sizes()) << name;
      // The same fp32 products and sums as the module, rounded once: equal, not close.
      EXPECT_TRUE(torch::equal(section(out, s, 0), rope.module(section(qkv, s, 0)))) << name << " q";
      EXPECT_TRUE(torch::equal(section(out, s, 1), rope.module(section(qkv, s, 1)))) << name << " k";
      EXPECT_TRUE(torch::equal(section(out, s, 2), section(qkv, s, 2))) << name << " v copied";
      // The dispatching call runs the reference on the CPU.
      EXPECT_TRUE(torch::equal(fused::rope_qkv_forward(qkv, rope.cos, rope.sin, s.heads), out)) << name;
      // A qkv whose batch and seq are laid out the other way round reads the same.
      const auto seq_major = qkv.transpose(0, 1).contiguous().transpose(0, 1);
      EXPECT_TRUE(torch::equal(fused::rope_qkv_forward(seq_major, rope.cos, rope.sin, s.heads), out)) << name;
    }
  }
}

TEST(FusedRope, BackwardMatchesAutogradOfTheEagerRotation) {
  int64_t seed = 100;
  for (const Shape& s : kRopeShapes) {
    torch::manual_seed(++seed);
    Rope rope(s.d_head);
    const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()});
    const auto g = torch::randn_like(qkv);
    const Passes eager = run(qkv, g, [&](const torch::Tensor& x) { return eager_rope_qkv(rope, x, s); });
    // Gradients as strided views of one tensor, as contiguous (b, h, s, d) copies and in (b, s, h, d) memory.
    const auto dq = section(g, s, 0), dk = section(g, s, 1), dv = section(g, s, 2);
    const auto strided = fused::rope_qkv_backward_reference(dq, dk, dv, rope.cos, rope.sin);
    EXPECT_LE(max_error_relative(strided, eager.d_qkv), 1e-6) << s.name();
    const auto packed = fused::rope_qkv_backward_reference(dq.contiguous(), dk.contiguous(), dv.contiguous(), rope.cos,
                                                           rope.sin);
    EXPECT_TRUE(torch::equal(packed, strided)) << s.name();
    const auto dispatched = fused::rope_qkv_backward(dq, dk, dv, rope.cos, rope.sin);
    EXPECT_TRUE(torch::equal(dispatched, strided)) << s.name();
    EXPECT_EQ(dispatched.sizes(), qkv.sizes());
  }
}

TEST(FusedRope, Bf16BackwardIsTheFp32OneRoundedOnce) {
  const Shape s{2, 33, 3, 16};
  torch::manual_seed(7);
  Rope rope(s.d_head);
  const auto g = torch::randn({s.batch, s.seq, 3 * s.d_model()}).to(torch::kBFloat16);
  const auto f32 = [](const torch::Tensor& t) { return t.to(torch::kFloat32); };
  const auto half = fused::rope_qkv_backward_reference(section(g, s, 0), section(g, s, 1), section(g, s, 2), rope.cos,
                                                       rope.sin);
  const auto full = fused::rope_qkv_backward_reference(f32(section(g, s, 0)), f32(section(g, s, 1)),
                                                       f32(section(g, s, 2)), rope.cos, rope.sin);
  EXPECT_EQ(half.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(half, full.to(torch::kBFloat16)));
}

// Independent of autograd: the backward is the forward's transpose, <R x, g> = <x, R^T g>.
TEST(FusedRope, BackwardIsTheForwardsAdjoint) {
  int64_t seed = 200;
  for (const Shape& s : kRopeShapes) {
    torch::manual_seed(++seed);
    Rope rope(s.d_head);
    const auto x = torch::randn({s.batch, s.seq, 3 * s.d_model()}, torch::kFloat64);
    const auto g = torch::randn_like(x);
    const auto rx = fused::rope_qkv_forward_reference(x, rope.cos, rope.sin, s.heads);
    const auto rtg =
        fused::rope_qkv_backward_reference(section(g, s, 0), section(g, s, 1), section(g, s, 2), rope.cos, rope.sin);
    const double left = (rx * g).sum().item<double>(), right = (x * rtg).sum().item<double>();
    EXPECT_NEAR(left, right, 1e-10 * std::max(1.0, std::abs(left))) << s.name();
    // A rotation keeps each pair's length.
    EXPECT_NEAR(rx.norm().item<double>(), x.norm().item<double>(), 1e-6 * x.norm().item<double>()) << s.name();
  }
}

TEST(FusedRope, RefusesShapesItCannotRotate) {
  Rope rope(8);
  const auto qkv = torch::randn({2, 5, 3 * 16});
  EXPECT_THROW(fused::rope_qkv_forward(qkv, rope.cos, rope.sin, 3), c10::Error);  // 48 is not 3 x 3 heads
  EXPECT_THROW(fused::rope_qkv_forward(torch::randn({2, 5, 3 * 6}), rope.cos, rope.sin, 2), c10::Error);  // d 3
  EXPECT_THROW(fused::rope_qkv_forward(qkv, rope.cos, rope.sin, 1), c10::Error);  // tables for d 8, heads of 16
  EXPECT_THROW(fused::rope_qkv_forward(torch::randn({1, kContext + 1, 48}), rope.cos, rope.sin, 2), c10::Error);
  EXPECT_THROW(fused::rope_qkv_forward(qkv, rope.cos.to(torch::kFloat64), rope.sin.to(torch::kFloat64), 2),
               c10::Error);
  const auto d = torch::randn({2, 2, 5, 8});
  EXPECT_THROW(fused::rope_qkv_backward(d, d, torch::randn({2, 2, 4, 8}), rope.cos, rope.sin), c10::Error);
  EXPECT_THROW(fused::rotary_attention(qkv, rope.cos, rope.sin, 3), c10::Error);
}

TEST(FusedRotaryAttention, MatchesUnfusedEagerAttentionForwardAndBackward) {
  const Shape shapes[] = {{2, 1, 3, 8}, {2, 7, 3, 8}, {1, 33, 2, 16}, {2, 70, 2, 6}, {1, 80, 4, 32}};
  int64_t seed = 300;
  for (const Shape& s : shapes) {
    torch::manual_seed(++seed);
    Rope rope(s.d_head);
    const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()});
    const auto d_out = torch::randn({s.batch, s.seq, s.d_model()});
    const Passes unfused = run(qkv, d_out, [&](const torch::Tensor& x) { return unfused_attention(rope, x, s); });
    const Passes fused = run(qkv, d_out, [&](const torch::Tensor& x) {
      return fused::rotary_attention(x, rope.cos, rope.sin, s.heads);
    });
    const Passes fallback = run(qkv, d_out, [&](const torch::Tensor& x) {
      return fused::rotary_attention_unfused(x, rope.cos, rope.sin, s.heads);
    });
    EXPECT_EQ(fused.out.sizes(), unfused.out.sizes()) << s.name();
    const auto leaf = qkv.detach().requires_grad_(true);
    EXPECT_TRUE(takes_the_flash_path(fused::rotary_attention(leaf, rope.cos, rope.sin, s.heads))) << s.name();
    EXPECT_FALSE(takes_the_flash_path(fused::rotary_attention_unfused(leaf, rope.cos, rope.sin, s.heads)));
    EXPECT_LE(max_error_relative(fused.out, unfused.out), 1e-5) << s.name() << " out";
    EXPECT_LE(max_error_relative(fused.d_qkv, unfused.d_qkv), 1e-5) << s.name() << " d_qkv";
    EXPECT_LE(max_error_relative(fallback.out, unfused.out), 1e-5) << s.name() << " unfused path out";
    EXPECT_LE(max_error_relative(fallback.d_qkv, unfused.d_qkv), 1e-5) << s.name() << " unfused path d_qkv";
  }
}

TEST(FusedRotaryAttention, Bf16MatchesFp32WithinItsRounding) {
  const Shape s{2, 33, 2, 16};
  torch::manual_seed(11);
  Rope rope(s.d_head);
  const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()}).to(torch::kBFloat16);
  const auto d_out = torch::randn({s.batch, s.seq, s.d_model()}).to(torch::kBFloat16);
  const auto f32 = [](const torch::Tensor& t) { return t.to(torch::kFloat32); };
  const Passes expected =
      run(f32(qkv), f32(d_out), [&](const torch::Tensor& x) { return unfused_attention(rope, x, s); });
  const Passes half = run(qkv, d_out, [&](const torch::Tensor& x) {
    return fused::rotary_attention(x, rope.cos, rope.sin, s.heads);
  });
  EXPECT_EQ(half.out.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(half.d_qkv.scalar_type(), torch::kBFloat16);
  // The rotated q, k, v rounded to bf16 (2^-9 relative), the math in fp32, O and d_qkv rounded again.
  EXPECT_LE(max_error_relative(half.out, expected.out), 2e-2);
  EXPECT_LE(max_error_relative(half.d_qkv, expected.d_qkv), 3e-2);
}

TEST(FusedRotaryAttention, RunsWithoutAutograd) {
  const Shape s{1, 9, 2, 8};
  torch::manual_seed(12);
  Rope rope(s.d_head);
  const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()});
  torch::NoGradGuard no_grad;
  const auto out = fused::rotary_attention(qkv, rope.cos, rope.sin, s.heads);
  EXPECT_FALSE(out.requires_grad());
  EXPECT_LE(max_error_relative(out, unfused_attention(rope, qkv, s)), 1e-5);
}
