// The fused engine's RMSNorm and SwiGLU CUDA kernels: against their LibTorch references on the
// same GPU inputs in fp32/bf16/fp16, odd row counts and lengths (vectorised and scalar paths),
// forward and backward; the autograd functions; dweight's determinism; and the GB/s they reach
// on the 2.7B model's shapes beside a device copy of as many bytes.
#include <gtest/gtest.h>

// The kernels are only in CUDA builds; a CPU build compiles this file to one skipped test.
#ifdef STEPSCOPE_WITH_CUDA

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#include <torch/torch.h>

#include "compat/torch_compat.h"
#include "gpu/stream_timing.h"
#include "kernels/cuda/fused/rms_norm_kernels.h"
#include "kernels/cuda/fused/swiglu_kernels.h"
#include "model/fused/rms_norm.h"
#include "model/fused/swiglu.h"

using namespace stepscope;

namespace {

bool no_gpu() { return compat::cuda_device_count() == 0; }

constexpr double kEps = 1e-5;
const torch::Dtype kTypes[] = {torch::kFloat32, torch::kBFloat16, torch::kFloat16};

// Kernel against reference, both computing in fp32 from the same inputs: they differ by the
// order of the row sums (~1e-7 relative), which may move a rounding to the stored type by one
// unit of its last place: 2^-24 fp32 (2e-5 leaves room for the sums), 2^-11 fp16, 2^-8 bf16.
double tolerance(torch::Dtype type) {
  if (type == torch::kFloat32) return 2e-5;
  if (type == torch::kFloat16) return 2e-3;
  return 1e-2;
}

// max |actual - expected| / max(1, max |expected|): relative to the largest entry, so entries
// that are rounding noise around 0 (dx with d = 1) do not count as large relative errors.
void expect_close(const torch::Tensor& actual, const torch::Tensor& expected, double tol, const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  ASSERT_EQ(actual.scalar_type(), expected.scalar_type()) << what;
  const auto a = actual.to(torch::kFloat64), e = expected.to(torch::kFloat64);
  const double error = (a - e).abs().max().item<double>();
  const double scale = std::max(1.0, e.abs().max().item<double>());
  EXPECT_LE(error / scale, tol) << what << ": max |error| " << error << " of " << scale;
}

torch::TensorOptions on_gpu(torch::Dtype type) { return torch::TensorOptions().device(torch::kCUDA).dtype(type); }

// A contiguous [rows, d] tensor whose data starts one element past a 16-byte boundary: the
// kernels must take their scalar path.
torch::Tensor misaligned(const torch::Tensor& t) {
  auto flat = torch::empty({t.numel() + 1}, t.options());
  auto view = flat.narrow(0, 1, t.numel()).view(t.sizes());
  view.copy_(t);
  return view;
}

std::string name(torch::Dtype a, torch::Dtype b, int64_t rows, int64_t d) {
  return std::string(c10::toString(a)) + "->" + c10::toString(b) + " rows " + std::to_string(rows) + " d " +
         std::to_string(d);
}

void check_rms_norm(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& dy, torch::Dtype out,
                    const std::string& what) {
  const auto kernel = fused::rms_norm_forward(x, w, kEps, out);
  const auto reference = fused::rms_norm_forward_reference(x, w, kEps, out);
  expect_close(kernel.y, reference.y, tolerance(out), what + " y");
  expect_close(kernel.inv_rms, reference.inv_rms, 1e-5, what + " inv_rms");
  // Both backwards from the reference's inv_rms, so only the backward is compared.
  const auto grads = fused::rms_norm_backward(dy, x, w, reference.inv_rms);
  const auto expected = fused::rms_norm_backward_reference(dy, x, w, reference.inv_rms);
  // dx: two rounded terms cancel in g - x_hat * mean(g * x_hat); twice the forward's room.
  expect_close(grads.dx, expected.dx, 2 * tolerance(x.scalar_type()), what + " dx");
  expect_close(grads.dweight, expected.dweight, 1e-5, what + " dweight");
}

}  // namespace

TEST(FusedNormCuda, RmsNormKernelsMatchTheReferenceForEveryTypeAndOddSizes) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  int64_t seed = 0;
  for (auto x_type : kTypes) {
    for (auto out_type : kTypes) {
      for (int64_t d : {1, 7, 64, 129, 768, 2560, 4099, 8192}) {
        for (int64_t rows : {1, 37, 257}) {
          torch::manual_seed(++seed);
          const auto x = torch::randn({rows, d}, on_gpu(x_type));
          const auto w = 1 + 0.5 * torch::randn({d}, on_gpu(torch::kFloat32));
          const auto dy = torch::randn({rows, d}, on_gpu(out_type));  // autograd's dy has y's dtype
          check_rms_norm(x, w, dy, out_type, name(x_type, out_type, rows, d));
        }
      }
    }
  }
}

TEST(FusedNormCuda, RmsNormTakesMisalignedRowsLeadingDimsMixedGradientsAndLongRows) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(11);
  for (auto type : kTypes) {
    const auto w = torch::randn({768}, on_gpu(torch::kFloat32));
    const auto x = torch::randn({37, 768}, on_gpu(type));
    check_rms_norm(misaligned(x), w, misaligned(torch::randn({37, 768}, on_gpu(type))), type,
                   name(type, type, 37, 768) + " misaligned");
    // [batch, seq, d] with an fp32 gradient into a half-type x.
    check_rms_norm(x.view({1, 37, 768}), w, torch::randn({1, 37, 768}, on_gpu(torch::kFloat32)), torch::kFloat32,
                   name(type, torch::kFloat32, 37, 768) + " 3-D");
  }
  // Past kRmsNormMaxD the reference runs on the GPU: the same numbers by construction.
  const int64_t d = kernels::kRmsNormMaxD + 8;
  const auto x = torch::randn({3, d}, on_gpu(torch::kBFloat16));
  const auto w = torch::randn({d}, on_gpu(torch::kFloat32));
  EXPECT_TRUE(torch::equal(fused::rms_norm_forward(x, w, kEps, torch::kBFloat16).y,
                           fused::rms_norm_forward_reference(x, w, kEps, torch::kBFloat16).y));
}

TEST(FusedNormCuda, RmsNormAutogradOnTheGpuMatchesTheCpuReferenceAndDweightIsDeterministic) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(12);
  const auto x0 = torch::randn({4, 129, 512}, on_gpu(torch::kFloat32));
  const auto w0 = torch::randn({512}, on_gpu(torch::kFloat32));
  const auto dy = torch::randn({4, 129, 512}, on_gpu(torch::kBFloat16));
  auto x = x0.clone().requires_grad_(true);
  auto w = w0.clone().requires_grad_(true);
  const auto y = fused::rms_norm(x, w, kEps, torch::kBFloat16);
  y.backward(dy);
  const auto cpu = fused::rms_norm_forward_reference(x0.cpu(), w0.cpu(), kEps, torch::kBFloat16);
  const auto cpu_grads = fused::rms_norm_backward_reference(dy.cpu(), x0.cpu(), w0.cpu(), cpu.inv_rms);
  expect_close(y.detach().cpu(), cpu.y, tolerance(torch::kBFloat16), "y");
  expect_close(x.grad().cpu(), cpu_grads.dx, 2 * tolerance(torch::kFloat32), "dx");
  expect_close(w.grad().cpu(), cpu_grads.dweight, 1e-5, "dweight");
  const auto inv_rms = fused::rms_norm_forward(x0, w0, kEps, torch::kBFloat16).inv_rms;
  const auto first = fused::rms_norm_backward(dy, x0, w0, inv_rms).dweight;
  const auto second = fused::rms_norm_backward(dy, x0, w0, inv_rms).dweight;
  EXPECT_TRUE(torch::equal(first, second)) << "dweight is summed in a fixed order";
}

TEST(FusedNormCuda, SwigluKernelsMatchTheReferenceForEveryTypeAndOddSizes) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  int64_t seed = 100;
  for (auto type : kTypes) {
    for (auto dy_type : kTypes) {
      for (int64_t d_ff : {1, 7, 129, 768, 2560, 4099}) {
        for (int64_t rows : {1, 37, 1000}) {
          torch::manual_seed(++seed);
          const std::string what = name(type, dy_type, rows, d_ff);
          const auto ab = 2.5 * torch::randn({rows, 2 * d_ff}, on_gpu(type));  // saturated gates too
          const auto dy = torch::randn({rows, d_ff}, on_gpu(dy_type));
          expect_close(fused::swiglu_forward(ab), fused::swiglu_forward_reference(ab), tolerance(type), what + " y");
          expect_close(fused::swiglu_backward(dy, ab), fused::swiglu_backward_reference(dy, ab), tolerance(type),
                       what + " d_ab");
        }
      }
    }
  }
}

TEST(FusedNormCuda, SwigluTakesMisalignedAndStridedInputsThroughAutograd) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(13);
  for (auto type : kTypes) {
    const auto ab0 = misaligned(torch::randn({2, 37, 2 * 768}, on_gpu(type)));
    auto ab = ab0.clone().requires_grad_(true);
    const auto dy = torch::randn({2, 37, 768}, on_gpu(type));
    const auto y = fused::swiglu(ab);
    y.backward(dy);
    const std::string what = std::string(c10::toString(type)) + " autograd";
    expect_close(y.detach().cpu(), fused::swiglu_forward_reference(ab0.cpu()), tolerance(type), what + " y");
    expect_close(ab.grad().cpu(), fused::swiglu_backward_reference(dy.cpu(), ab0.cpu()), tolerance(type),
                 what + " d_ab");
    expect_close(fused::swiglu_forward(misaligned(ab0)), fused::swiglu_forward_reference(ab0), tolerance(type),
                 what + " misaligned");
    const auto strided = torch::randn({2 * 768, 37}, on_gpu(type)).t();  // copied to contiguous first
    expect_close(fused::swiglu_forward(strided), fused::swiglu_forward_reference(strided), tolerance(type),
                 what + " strided");
  }
}

namespace {

// Mean µs of `launch(i)` over iterations after a warm-up, timed by events on the current
// stream; i picks the buffer set, so consecutive calls do not find their inputs in the L2.
template <class Launch>
double mean_us(Launch launch, int iterations = 100) {
  return 1e3 * stepscope::testing::mean_launch_ms(launch, iterations, 5);
}

void print_rate(const char* what, double bytes, double us) {
  std::printf("  %-44s %8.2f us %7.0f GB/s\n", what, us, bytes / us / 1e3);
}

// Enough buffer sets of `bytes` each to pass twice the L2 (50 MB on an H100) between reuses.
int buffer_sets(double bytes) { return std::max(2, static_cast<int>(128e6 / bytes) + 1); }

}  // namespace

TEST(FusedNormCuda, PrintsAchievedBandwidthOnThe27BModelShapes) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  const auto stream = c10::cuda::getCurrentCUDAStream().stream();
  const auto bf16 = kernels::ElementType::bf16;
  // RMSNorm [1024, 2560] bf16 in and out (batch 4 x context 256 tokens of the 2.7B model).
  {
    const int64_t rows = 1024, d = 2560;
    const double row_bytes = rows * d * 2.0;
    const int sets = buffer_sets(3 * row_bytes);
    std::vector<torch::Tensor> x, y, dy, dx, inv;
    for (int i = 0; i < sets; ++i) {
      x.push_back(torch::randn({rows, d}, on_gpu(torch::kBFloat16)));
      dy.push_back(torch::randn({rows, d}, on_gpu(torch::kBFloat16)));
      y.push_back(torch::empty_like(x.back()));
      dx.push_back(torch::empty_like(x.back()));
      inv.push_back(torch::empty({rows}, on_gpu(torch::kFloat32)));
    }
    const auto w = torch::randn({d}, on_gpu(torch::kFloat32));
    auto dw = torch::empty({d}, on_gpu(torch::kFloat32));
    auto workspace = torch::empty({kernels::rms_norm_backward_workspace_floats(rows, d)}, on_gpu(torch::kFloat32));
    const double forward_us = mean_us([&](int i) {
      const int s = i % sets;
      kernels::rms_norm_forward_cuda(x[s].data_ptr(), bf16, w.data_ptr<float>(), y[s].data_ptr(), bf16,
                                     inv[s].data_ptr<float>(), rows, d, kEps, stream);
    });
    const double backward_us = mean_us([&](int i) {
      const int s = i % sets;
      kernels::rms_norm_backward_cuda(dy[s].data_ptr(), bf16, x[s].data_ptr(), bf16, w.data_ptr<float>(),
                                      inv[s].data_ptr<float>(), dx[s].data_ptr(), dw.data_ptr<float>(),
                                      workspace.data_ptr<float>(), rows, d, stream);
    });
    const double copy_us = mean_us([&](int i) { y[i % sets].copy_(x[(i + 1) % sets]); });
    const double reference_us = mean_us([&](int i) {
      fused::rms_norm_forward_reference(x[i % sets], w, kEps, torch::kBFloat16);
    }, 20);
    std::printf("RMSNorm [1024, 2560] bf16 -> bf16, weight fp32 (bytes: x + y, + dy + dx backward;\n"
                "the backward's fp32 partial dweight rows stay in the L2 and are not counted):\n");
    print_rate("forward kernel", 2 * row_bytes + rows * 4 + d * 4, forward_us);
    print_rate("backward kernels (dx, partial dweight, sum)", 3 * row_bytes + rows * 4 + d * 8, backward_us);
    print_rate("device copy of x (read + write)", 2 * row_bytes, copy_us);
    print_rate("forward, LibTorch reference ops", 2 * row_bytes + rows * 4 + d * 4, reference_us);
    EXPECT_GT(forward_us, 0);
    EXPECT_GT(backward_us, 0);
  }
  // SwiGLU [1024, 2 * 10240] bf16 (the 2.7B model's d_ff).
  {
    const int64_t rows = 1024, d_ff = 10240;
    const double half_bytes = rows * d_ff * 2.0;
    const int sets = buffer_sets(5 * half_bytes);
    std::vector<torch::Tensor> ab, y, dy, d_ab;
    for (int i = 0; i < sets; ++i) {
      ab.push_back(torch::randn({rows, 2 * d_ff}, on_gpu(torch::kBFloat16)));
      dy.push_back(torch::randn({rows, d_ff}, on_gpu(torch::kBFloat16)));
      y.push_back(torch::empty_like(dy.back()));
      d_ab.push_back(torch::empty_like(ab.back()));
    }
    const double forward_us = mean_us([&](int i) {
      const int s = i % sets;
      kernels::swiglu_forward_cuda(ab[s].data_ptr(), y[s].data_ptr(), bf16, rows, d_ff, stream);
    });
    const double backward_us = mean_us([&](int i) {
      const int s = i % sets;
      kernels::swiglu_backward_cuda(dy[s].data_ptr(), bf16, ab[s].data_ptr(), d_ab[s].data_ptr(), bf16, rows, d_ff,
                                    stream);
    });
    const double copy_us = mean_us([&](int i) { d_ab[i % sets].copy_(ab[(i + 1) % sets]); });
    const double reference_us = mean_us([&](int i) { fused::swiglu_forward_reference(ab[i % sets]); }, 20);
    std::printf("SwiGLU [1024, 2 x 10240] bf16 (bytes: a, b, y; a, b, dy, d_a, d_b backward):\n");
    print_rate("forward kernel", 3 * half_bytes, forward_us);
    print_rate("backward kernel", 5 * half_bytes, backward_us);
    print_rate("device copy of ab (read + write)", 4 * half_bytes, copy_us);
    print_rate("forward, LibTorch reference ops", 3 * half_bytes, reference_us);
    EXPECT_GT(forward_us, 0);
    EXPECT_GT(backward_us, 0);
  }
}

#else

TEST(FusedNormCuda, NeedsACudaBuild) { GTEST_SKIP() << "the fused kernels are only in CUDA builds"; }

#endif  // STEPSCOPE_WITH_CUDA
