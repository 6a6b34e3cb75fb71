// The RoPE q/k/v kernels against the LibTorch reference (itself checked against the eager
// RotaryEmbedding and autograd in tests/engine/test_fused_rotary_attention.cpp), fp32, bf16 and
// fp16, odd sizes, the vectorised and the element-wise paths, gradients of any strides; then
// rotary_attention on the GPU (kernels + flash on strided views) against the unfused autograd
// path, and a timing print of the kernels' bandwidth on the 2.7B model's attention shape.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <torch/torch.h>

#include "compat/torch_compat.h"
#include "core/device.h"
#include "model/fused/rotary_attention.h"
#include "model/layers.h"
#include "runners/device_backend.h"

using namespace stepscope;

namespace {

bool no_gpu() { return compat::cuda_device_count() == 0; }

struct Shape {
  int64_t batch, seq, heads, d_head;
  int64_t d_model() const { return heads * d_head; }
  std::string name() const {
    return "b" + std::to_string(batch) + " s" + std::to_string(seq) + " h" + std::to_string(heads) + " d" +
           std::to_string(d_head);
  }
};

// d_head 8, 64, 80: 16-byte chunks in every type; 4: in fp32 only; 6: never (element path);
// lengths of 1, odd ones and one across many blocks.
const Shape kRopeShapes[] = {{2, 7, 3, 8}, {1, 1, 2, 4}, {3, 33, 5, 6}, {2, 130, 4, 64}, {1, 17, 2, 80}, {2, 3, 1, 2}};
constexpr int64_t kContext = 260;

const torch::Dtype kTypes[] = {torch::kFloat32, torch::kBFloat16, torch::kFloat16};

torch::TensorOptions on_gpu(torch::Dtype type) { return torch::TensorOptions().device(torch::kCUDA).dtype(type); }

// The model's tables (fp32, [context, d_head / 2]) on the GPU.
struct Tables {
  torch::Tensor cos, sin;
};
Tables tables_for(int64_t d_head) {
  RotaryEmbedding rope(kContext, d_head, 10000.0, on_gpu(torch::kFloat32));
  return {rope->named_buffers()["cos_cache"], rope->named_buffers()["sin_cache"]};
}

// The kernels compute what the reference computes, in the same fp32 operations rounded the
// same way (no fused multiply-add), so they should agree exactly; the bound allows one unit in
// the last place of the type, relative to the largest magnitude.
double ulp_tolerance(torch::Dtype type) {
  if (type == torch::kFloat32) return 1.2e-7;
  if (type == torch::kFloat16) return 9.8e-4;
  return 7.9e-3;
}

double max_error_relative(const torch::Tensor& actual, const torch::Tensor& expected) {
  const auto a = actual.to(torch::kFloat64), e = expected.to(torch::kFloat64);
  return (a - e).abs().max().item<double>() / std::max(1.0, e.abs().max().item<double>());
}

torch::Tensor section(const torch::Tensor& qkv, const Shape& s, int64_t i) {
  return qkv.view({s.batch, s.seq, 3, s.heads, s.d_head}).select(2, i).transpose(1, 2);
}

}  // namespace

TEST(FusedRopeCuda, ForwardKernelMatchesTheReference) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  int64_t seed = 0;
  for (auto type : kTypes) {
    for (const Shape& s : kRopeShapes) {
      torch::manual_seed(++seed);
      const Tables t = tables_for(s.d_head);
      const int64_t width = 3 * s.d_model();
      // Contiguous; rows one element apart from 16-byte alignment (the element path); seq-major memory.
      const std::pair<std::string, torch::Tensor> inputs[] = {
          {"contiguous", torch::randn({s.batch, s.seq, width}, on_gpu(type))},
          {"unaligned rows", torch::randn({s.batch, s.seq, width + 1}, on_gpu(type)).narrow(2, 1, width)},
          {"seq-major", torch::randn({s.seq, s.batch, width}, on_gpu(type)).transpose(0, 1)},
      };
      for (const auto& [layout, qkv] : inputs) {
        const std::string name = std::string(c10::toString(type)) + " " + s.name() + " " + layout;
        const auto out = fused::rope_qkv_forward(qkv, t.cos, t.sin, s.heads);
        ASSERT_TRUE(out.is_cuda()) << name;
        EXPECT_EQ(out.scalar_type(), type) << name;
        EXPECT_EQ(out.sizes(), qkv.sizes()) << name;
        EXPECT_TRUE(out.is_contiguous()) << name;
        const auto expected = fused::rope_qkv_forward_reference(qkv, t.cos, t.sin, s.heads);
        EXPECT_LE(max_error_relative(out, expected), ulp_tolerance(type)) << name;
        // The CPU reference on the same numbers (fp32 tables computed on the CPU) agrees too.
        const auto cpu = fused::rope_qkv_forward_reference(qkv.cpu(), t.cos.cpu(), t.sin.cpu(), s.heads);
        EXPECT_LE(max_error_relative(out.cpu(), cpu), ulp_tolerance(type)) << name << " vs CPU";
        EXPECT_TRUE(torch::equal(section(out, s, 2), section(qkv.contiguous(), s, 2))) << name << " v copied";
      }
    }
  }
}

TEST(FusedRopeCuda, BackwardKernelMatchesTheReferenceForGradientsOfAnyStrides) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  int64_t seed = 100;
  for (auto type : kTypes) {
    for (const Shape& s : kRopeShapes) {
      torch::manual_seed(++seed);
      const Tables t = tables_for(s.d_head);
      const auto opts = on_gpu(type);
      const auto packed = [&] { return torch::randn({s.batch, s.heads, s.seq, s.d_head}, opts); };
      // (b, s, h, d) memory: what empty_like gives flash's backward for views of one qkv tensor.
      const auto seq_major = [&] { return torch::randn({s.batch, s.seq, s.heads, s.d_head}, opts).transpose(1, 2); };
      // Every other element of a wider tensor: stride 2 inside a head (the element path).
      const auto spaced = [&] {
        return torch::randn({s.batch, s.heads, s.seq, 2 * s.d_head}, opts).slice(-1, 0, c10::nullopt, 2);
      };
      const auto one = torch::randn({s.batch, s.seq, 3 * s.d_model()}, opts);
      struct Layout {
        std::string name;
        torch::Tensor dq, dk, dv;
      };
      const Layout layouts[] = {
          {"packed", packed(), packed(), packed()},
          {"seq-major", seq_major(), seq_major(), seq_major()},
          {"views of one qkv gradient", section(one, s, 0), section(one, s, 1), section(one, s, 2)},
          {"spaced", spaced(), spaced(), spaced()},
          {"mixed", packed(), seq_major(), spaced()},
      };
      for (const Layout& l : layouts) {
        const std::string name = std::string(c10::toString(type)) + " " + s.name() + " " + l.name;
        const auto d_qkv = fused::rope_qkv_backward(l.dq, l.dk, l.dv, t.cos, t.sin);
        EXPECT_EQ(d_qkv.scalar_type(), type) << name;
        EXPECT_EQ(d_qkv.sizes(), one.sizes()) << name;
        EXPECT_TRUE(d_qkv.is_contiguous()) << name;
        const auto expected = fused::rope_qkv_backward_reference(l.dq, l.dk, l.dv, t.cos, t.sin);
        EXPECT_LE(max_error_relative(d_qkv, expected), ulp_tolerance(type)) << name;
        EXPECT_TRUE(torch::equal(section(d_qkv, s, 2), l.dv)) << name << " dv copied";
      }
    }
  }
}

// The backward kernel undoes the forward one: R^T R = 1 up to the type's rounding.
TEST(FusedRopeCuda, BackwardUndoesForward) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  const Shape s{2, 33, 4, 64};
  const Tables t = tables_for(s.d_head);
  torch::manual_seed(5);
  const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()}, on_gpu(torch::kFloat32));
  const auto rotated = fused::rope_qkv_forward(qkv, t.cos, t.sin, s.heads);
  const auto back =
      fused::rope_qkv_backward(section(rotated, s, 0), section(rotated, s, 1), section(rotated, s, 2), t.cos, t.sin);
  EXPECT_LE(max_error_relative(back, qkv), 1e-6);
}

TEST(FusedRotaryAttentionCuda, MatchesTheUnfusedFp32AutogradPath) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  // Flash shapes (head dims 32, 64, 80, 128; lengths 1, 7, 33, 257), then two flash refuses
  // (head dim 12: not a multiple of 8; 160: above 128), which take the unfused path.
  const Shape shapes[] = {{2, 1, 3, 64},  {2, 7, 4, 64},   {1, 33, 2, 32}, {2, 257, 4, 64},
                          {1, 100, 2, 80}, {1, 77, 2, 128}, {1, 33, 2, 12}, {1, 40, 1, 160}};
  int64_t seed = 200;
  for (auto type : kTypes) {
    for (const Shape& s : shapes) {
      const bool flash = s.d_head % 8 == 0 && s.d_head <= 128;
      const std::string name = std::string(c10::toString(type)) + " " + s.name() + (flash ? "" : " (unfused)");
      torch::manual_seed(++seed);
      const Tables t = tables_for(s.d_head);
      const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()}, on_gpu(type));
      const auto d_out = torch::randn({s.batch, s.seq, s.d_model()}, on_gpu(type));
      const auto f32 = [](const torch::Tensor& x) { return x.to(torch::kFloat32); };
      auto fused_in = qkv.detach().clone().requires_grad_(true);
      const auto out = fused::rotary_attention(fused_in, t.cos, t.sin, s.heads);
      out.backward(d_out);
      auto ref_in = f32(qkv).detach().requires_grad_(true);
      const auto expected = fused::rotary_attention_unfused(ref_in, t.cos, t.sin, s.heads);
      expected.backward(f32(d_out));
      EXPECT_EQ(out.scalar_type(), type) << name;
      EXPECT_EQ(out.sizes(), expected.sizes()) << name;
      EXPECT_EQ(fused_in.grad().scalar_type(), type) << name;
      // fp32: flash runs in 3xTF32 (products to ~2^-21), as its own tests allow. Half types: the
      // rotated q and k rounded to the type, flash's tensor cores in it, O and d_qkv rounded
      // (the flash test's bounds); the unfused path in a half type runs the whole score matrix
      // and softmax output in it, so it gets more.
      double out_tol = 5e-5, grad_tol = 1e-4;
      if (type == torch::kFloat16) out_tol = flash ? 2e-3 : 8e-3, grad_tol = flash ? 1e-2 : 3e-2;
      if (type == torch::kBFloat16) out_tol = flash ? 1.6e-2 : 3e-2, grad_tol = flash ? 5e-2 : 8e-2;
      EXPECT_LE(max_error_relative(out, expected), out_tol) << name << " out";
      EXPECT_LE(max_error_relative(fused_in.grad(), ref_in.grad()), grad_tol) << name << " d_qkv";
    }
  }
}

// Bandwidth of the two kernels on the 2.7B model's attention input ([4, 256, 3 x 2560], 32 heads
// of 80): each reads and writes the whole qkv tensor once (tables: 80 KiB, from cache). A copy
// of the same tensor is timed beside them. Printed, not asserted: the device run reads it.
TEST(FusedRopeCuda, PrintsBandwidthOnThe27BShape) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  const Shape s{4, 256, 32, 80};
  const Tables t = tables_for(s.d_head);
  auto backend = make_device_backend(Device{DeviceKind::cuda, -1});
  constexpr int kIterations = 200;
  for (auto type : {torch::kBFloat16, torch::kFloat32}) {
    const auto qkv = torch::randn({s.batch, s.seq, 3 * s.d_model()}, on_gpu(type));
    const auto copy_target = torch::empty_like(qkv);
    const auto grads_packed = torch::randn({3, s.batch, s.heads, s.seq, s.d_head}, on_gpu(type));
    const auto grads_seq_major = torch::randn({3, s.batch, s.seq, s.heads, s.d_head}, on_gpu(type)).transpose(2, 3);
    const double bytes = 2.0 * static_cast<double>(qkv.numel()) * static_cast<double>(qkv.element_size());
    const auto time_us = [&](const auto& body) {
      for (int i = 0; i < 10; ++i) body();
      auto clock = backend->make_clock();
      clock->start();
      for (int i = 0; i < kIterations; ++i) body();
      clock->end_forward();
      return static_cast<double>(clock->finish(StepMode::forward).forward_ns) / 1e3 / kIterations;
    };
    const double copy_us = time_us([&] { copy_target.copy_(qkv); });
    const double forward_us = time_us([&] { fused::rope_qkv_forward(qkv, t.cos, t.sin, s.heads); });
    const double backward_packed_us = time_us([&] {
      fused::rope_qkv_backward(grads_packed[0], grads_packed[1], grads_packed[2], t.cos, t.sin);
    });
    const double backward_seq_major_us = time_us([&] {
      fused::rope_qkv_backward(grads_seq_major[0], grads_seq_major[1], grads_seq_major[2], t.cos, t.sin);
    });
    const auto gbps = [&](double us) { return bytes / (us * 1e3); };
    std::printf("rope qkv %s [4, 256, 7680], 32 heads of 80, %.1f MB moved per call:\n", c10::toString(type),
                bytes / 1e6);
    std::printf("  copy_ of qkv          %8.2f us  %7.1f GB/s\n", copy_us, gbps(copy_us));
    std::printf("  forward               %8.2f us  %7.1f GB/s\n", forward_us, gbps(forward_us));
    std::printf("  backward, (b,h,s,d)   %8.2f us  %7.1f GB/s\n", backward_packed_us, gbps(backward_packed_us));
    std::printf("  backward, (b,s,h,d)   %8.2f us  %7.1f GB/s\n", backward_seq_major_us, gbps(backward_seq_major_us));
    // The whole attention block, forward and backward, fused against the unfused autograd path.
    const auto d_out = torch::randn({s.batch, s.seq, s.d_model()}, on_gpu(type));
    const auto step_ms = [&](const auto& attend) {
      return time_us([&] {
               auto x = qkv.detach().requires_grad_(true);
               attend(x).backward(d_out);
             }) /
             1e3;
    };
    const double fused_ms =
        step_ms([&](const torch::Tensor& x) { return fused::rotary_attention(x, t.cos, t.sin, s.heads); });
    const double unfused_ms =
        step_ms([&](const torch::Tensor& x) { return fused::rotary_attention_unfused(x, t.cos, t.sin, s.heads); });
    std::printf("  rotary attention forward + backward: fused %.3f ms, unfused (rope ops + naive) %.3f ms\n",
                fused_ms, unfused_ms);
    std::fflush(stdout);
  }
}
