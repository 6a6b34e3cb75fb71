// The fused AdamW update's speed on the 2.7B model's parameter shapes, beside LibTorch's
// _fused_adamw_ on the same tensors and a device-to-device copy (the bandwidth bound): ms and
// GB/s printed for the device run to read. Apart from the correctness tests in
// test_fused_adamw_cuda.cpp, under the same suite name so `--gtest_filter=FusedAdamWCuda.*` runs
// both. CUDA builds only: it times with CUDA events.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <vector>

#include <torch/torch.h>

#ifdef STEPSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include "gpu/stream_timing.h"
#endif

#include "compat/torch_compat.h"
#include "model/adamw.h"
#include "model/fused/fused_adamw.h"

using namespace stepscope;

#ifdef STEPSCOPE_WITH_CUDA
namespace {

bool no_gpu() { return compat::cuda_device_count() == 0; }

// Milliseconds a call of `fn` takes on the current stream, after two warm-ups.
double time_ms(const std::function<void()>& fn, int iterations) {
  return stepscope::testing::mean_launch_ms([&](int) { fn(); }, iterations);
}

// The 2.7B preset's parameters (d_model 2560, d_ff 10240, 32 layers, vocabulary 10000) with
// `layers` layers: embeddings, per layer ln1, q, k, v, o, ln2, w1, w2, w3, the final norm, the
// LM head.
std::vector<std::vector<int64_t>> shapes_2_7b(int64_t layers) {
  const int64_t d = 2560, ff = 10240, vocab = 10000;
  std::vector<std::vector<int64_t>> shapes = {{vocab, d}};
  for (int64_t l = 0; l < layers; ++l) {
    for (const auto& s : std::vector<std::vector<int64_t>>{{d}, {d, d}, {d, d}, {d, d}, {d, d}, {d}, {ff, d}, {d, ff}, {ff, d}}) {
      shapes.push_back(s);
    }
  }
  shapes.push_back({d});
  shapes.push_back({vocab, d});
  return shapes;
}

int64_t count(const std::vector<std::vector<int64_t>>& shapes) {
  int64_t n = 0;
  for (const auto& s : shapes) n += c10::multiply_integers(s);
  return n;
}

}  // namespace

// Prints ms and GB/s of our update, LibTorch's _fused_adamw_ (2.x) on the same tensors and a
// device-to-device copy, on the 2.7B model's shapes (fewer layers where the GPU lacks memory).
TEST(FusedAdamWCuda, TimingOn2_7BShapesBesideTorchFusedAndCopy) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  c10::cuda::CUDACachingAllocator::emptyCache();
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  // p, m, v, fp32 grads, the bf16 copy and bf16 grads: 20 bytes a parameter; 2 GiB spare.
  const double usable = static_cast<double>(free_bytes) - 2.0 * (1 << 30);
  int64_t layers = 32;
  while (layers > 1 && static_cast<double>(count(shapes_2_7b(layers))) * 20.0 > usable) --layers;
  const auto shapes = shapes_2_7b(layers);
  const int64_t n = count(shapes);
  std::printf("[fused adamw] %s: %lld layers of the 2.7B model, %.3f G parameters, %zu tensors\n",
              at::cuda::getCurrentDeviceProperties()->name, static_cast<long long>(layers), n / 1e9, shapes.size());
  {
    const auto f32 = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat32);
    auto params = torch::randn({n}, f32), m = torch::zeros({n}, f32), v = torch::zeros({n}, f32);
    auto grad_flat = torch::randn({n}, f32);
    auto grad_flat_bf16 = grad_flat.to(torch::kBFloat16);
    auto copy = params.to(torch::kBFloat16);
    auto step = torch::zeros({1}, f32.dtype(torch::kLong));
    std::vector<at::Tensor> grads, grads_bf16, p_views, m_views, v_views, steps;
    std::vector<int64_t> offsets;
    int64_t offset = 0;
    for (const auto& s : shapes) {
      const int64_t numel = c10::multiply_integers(s);
      offsets.push_back(offset);
      grads.push_back(grad_flat.narrow(0, offset, numel));
      grads_bf16.push_back(grad_flat_bf16.narrow(0, offset, numel));
      p_views.push_back(params.narrow(0, offset, numel).view(s));
      m_views.push_back(m.narrow(0, offset, numel).view(s));
      v_views.push_back(v.narrow(0, offset, numel).view(s));
      steps.push_back(torch::ones({}, f32));
      offset += numel;
    }
    std::vector<at::Tensor> grads_shaped;
    for (size_t i = 0; i < shapes.size(); ++i) grads_shaped.push_back(grads[i].view(shapes[i]));
    const auto o = AdamWOptions{};
    const int iterations = 10;
    const double ours_copy_ms = time_ms([&] { fused::fused_adamw_update(params, grads, offsets, m, v, step, copy, o); }, iterations);
    const double ours_ms = time_ms([&] { fused::fused_adamw_update(params, grads, offsets, m, v, step, at::Tensor(), o); }, iterations);
    const double ours_bf16_ms =
        time_ms([&] { fused::fused_adamw_update(params, grads_bf16, offsets, m, v, step, copy, o); }, iterations);
    double torch_ms = 0;
    if (compat::fused_adamw_available()) {
      torch_ms = time_ms([&] {
        compat::torch_fused_adamw(p_views, grads_shaped, m_views, v_views, steps, o.lr, o.beta1, o.beta2,
                                  o.weight_decay, o.eps);
      }, iterations);
    }
    const double copy_ms = time_ms([&] { m.copy_(v); }, iterations);  // 4n bytes read, 4n written
    const double copy_gbs = 8.0 * n / (copy_ms * 1e6);
    auto row = [&](const char* what, double ms, double bytes_per_param) {
      const double gbs = bytes_per_param * n / (ms * 1e6);
      std::printf("[fused adamw] %-44s %9.3f ms %8.0f GB/s %6.1f %% of copy\n", what, ms, gbs, 100.0 * gbs / copy_gbs);
    };
    row("ours, fp32 grads + bf16 copy (30 B/param)", ours_copy_ms, 30);
    row("ours, fp32 grads, no copy (28 B/param)", ours_ms, 28);
    row("ours, bf16 grads + bf16 copy (28 B/param)", ours_bf16_ms, 28);
    if (torch_ms > 0) {
      row("torch _fused_adamw_, fp32 (28 B/param)", torch_ms, 28);
      std::printf("[fused adamw] ours (no copy) / torch fused: %.3f\n", ours_ms / torch_ms);
    } else {
      std::printf("[fused adamw] torch _fused_adamw_: not in LibTorch %s\n", compat::libtorch_version().c_str());
    }
    row("device-to-device copy (8 B/param)", copy_ms, 8);
    EXPECT_GT(ours_ms, 0.0);
  }
  c10::cuda::CUDACachingAllocator::emptyCache();
}
#endif  // STEPSCOPE_WITH_CUDA
