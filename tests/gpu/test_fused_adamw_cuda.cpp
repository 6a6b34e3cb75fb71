// The fused AdamW kernels against the LibTorch reference (run on the CPU on copies of the same
// state): fp32/bf16/fp16 gradients, bf16/fp16/no compute copy, odd sizes and offsets,
// misaligned gradients, more gradients than one launch's table holds, undefined gradients,
// 3 steps; the FusedAdamW class on the GPU; one update captured in a CUDA graph and replayed
// twice against two eager updates. The timing beside LibTorch's _fused_adamw_ and a copy is in
// test_fused_adamw_speed_cuda.cpp.
//
// Tolerances (the kernel computes the same fp32 rule, with FMAs where the CPU rounds twice):
// m and v within 1e-5 of their largest magnitude, params within 1e-4 of the largest change the
// reference made to them (3 steps at lr 1e-2); the compute copy equal to the kernel's own
// parameters rounded, bit for bit; untouched ranges and the step counter exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

// The graph needs CUDA's own headers, present in CUDA builds only (the test
// binary also builds, and skips, on CPU builds).
#ifdef STEPSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "compat/torch_compat.h"
#include "model/adamw.h"
#include "model/fused/fused_adamw.h"

using namespace stepscope;

namespace {

bool no_gpu() { return compat::cuda_device_count() == 0; }

// Everything one update reads and writes.
struct State {
  at::Tensor params, m, v, step, copy;
  std::vector<at::Tensor> grads;
  std::vector<int64_t> offsets;

  // A copy of everything on `device` (a copy also where the device is the same).
  State to(const torch::Device& device) const {
    auto copy_to = [&](const at::Tensor& t) {
      return t.defined() ? t.to(t.options().device(device), /*non_blocking=*/false, /*copy=*/true) : at::Tensor();
    };
    State s;
    s.params = copy_to(params);
    s.m = copy_to(m);
    s.v = copy_to(v);
    s.step = copy_to(step);
    s.copy = copy_to(copy);
    for (const auto& g : grads) s.grads.push_back(copy_to(g));
    s.offsets = offsets;
    return s;
  }
};

void update(State& s, const AdamWOptions& o) {
  fused::fused_adamw_update(s.params, s.grads, s.offsets, s.m, s.v, s.step, s.copy, o);
}
void update_reference(State& s, const AdamWOptions& o) {
  fused::fused_adamw_update_reference(s.params, s.grads, s.offsets, s.m, s.v, s.step, s.copy, o);
}

AdamWOptions test_options() {
  AdamWOptions o;
  o.lr = 1e-2;
  o.weight_decay = 0.1;
  return o;
}

// A gradient of `numel` elements; `misaligned` puts its data one element past an aligned
// address, so the kernel must read it element by element.
at::Tensor make_grad(int64_t numel, torch::Dtype type, bool misaligned) {
  const auto options = torch::TensorOptions().device(torch::kCUDA).dtype(type);
  if (!misaligned) return torch::randn({numel}, options);
  return torch::randn({numel + 1}, options).narrow(0, 1, numel);
}

// Ranges of `sizes` one after another with `gaps[i]` uncovered elements before range i; moments
// already warm (m of both signs, v >= 0) and the counter at `start_step`.
State make_state(const std::vector<int64_t>& sizes, const std::vector<int64_t>& gaps,
                 const std::vector<torch::Dtype>& grad_types, std::optional<torch::Dtype> copy_type, int64_t start_step) {
  State s;
  int64_t n = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    n += gaps[i % gaps.size()];
    s.offsets.push_back(n);
    n += sizes[i];
  }
  n += 3;  // a tail no gradient covers
  const auto f32 = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat32);
  s.params = torch::randn({n}, f32);
  s.m = torch::randn({n}, f32) * 0.1;
  s.v = torch::rand({n}, f32) * 0.01;
  s.step = torch::full({1}, start_step, f32.dtype(torch::kLong));
  if (copy_type) s.copy = s.params.to(*copy_type);
  for (size_t i = 0; i < sizes.size(); ++i) {
    s.grads.push_back(make_grad(sizes[i], grad_types[i % grad_types.size()], i % 5 == 4));
  }
  return s;
}

// New gradient values in the same tensors (as autograd refills them under a graph).
void refill_grads(State& s) {
  for (auto& g : s.grads) {
    if (g.defined()) g.copy_(torch::randn(g.sizes(), g.options().dtype(torch::kFloat32)));
  }
}

double max_abs(const at::Tensor& t) { return t.numel() == 0 ? 0.0 : t.abs().max().item<double>(); }

void expect_matches_reference(const State& kernel, const State& reference, const at::Tensor& params_before,
                              const std::string& what) {
  const auto cpu = torch::Device(torch::kCPU);
  const auto p = kernel.params.to(cpu), m = kernel.m.to(cpu), v = kernel.v.to(cpu);
  const double change = std::max(1e-30, max_abs(reference.params - params_before));
  EXPECT_LE(max_abs(p - reference.params), 1e-4 * change) << what << ": params (largest change " << change << ")";
  EXPECT_LE(max_abs(m - reference.m), 1e-5 * std::max(1e-30, max_abs(reference.m))) << what << ": m";
  EXPECT_LE(max_abs(v - reference.v), 1e-5 * std::max(1e-30, max_abs(reference.v))) << what << ": v";
  EXPECT_EQ(kernel.step.item<int64_t>(), reference.step.item<int64_t>()) << what << ": step";
  if (kernel.copy.defined()) {
    EXPECT_TRUE(torch::equal(kernel.copy.to(cpu), p.to(kernel.copy.scalar_type()))) << what << ": compute copy";
  }
  // Elements no gradient covers: exactly as before, on both sides.
  std::vector<uint8_t> uncovered(static_cast<size_t>(p.numel()), 1);
  for (size_t i = 0; i < kernel.grads.size(); ++i) {
    if (!kernel.grads[i].defined()) continue;
    std::fill_n(uncovered.begin() + kernel.offsets[i], kernel.grads[i].numel(), uint8_t{0});
  }
  const auto untouched = torch::from_blob(uncovered.data(), {p.numel()}, torch::kUInt8).to(torch::kBool);
  EXPECT_TRUE(torch::equal(p.masked_select(untouched), params_before.masked_select(untouched)))
      << what << ": elements without a gradient changed";
}

// `steps` updates of the kernel and of the CPU reference from the same state and gradients.
void check_against_reference(State gpu, int steps, const std::string& what) {
  const auto options = test_options();
  State cpu = gpu.to(torch::Device(torch::kCPU));
  const auto before = cpu.params.clone();
  for (int t = 0; t < steps; ++t) {
    if (t > 0) {
      refill_grads(gpu);
      for (size_t i = 0; i < gpu.grads.size(); ++i) {
        if (gpu.grads[i].defined()) cpu.grads[i] = gpu.grads[i].cpu();
      }
    }
    update(gpu, options);
    update_reference(cpu, options);
  }
  torch::cuda::synchronize();
  expect_matches_reference(gpu, cpu, before, what);
}

std::string type_name(torch::Dtype t) { return c10::toString(t); }

}  // namespace

TEST(FusedAdamWCuda, MatchesReferenceForEveryGradientAndCopyTypeAtOddSizes) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(0);
  const std::vector<int64_t> sizes = {1, 3, 1000003, 5, 2, 7};
  const std::vector<int64_t> gaps = {0, 1, 2, 3};
  const std::vector<std::optional<torch::Dtype>> copies = {std::nullopt, torch::kBFloat16, torch::kFloat16};
  for (const auto grad_type : {torch::kFloat32, torch::kBFloat16, torch::kFloat16}) {
    for (const auto& copy : copies) {
      const std::string what = "grads " + type_name(grad_type) + ", copy " + (copy ? type_name(*copy) : "none");
      check_against_reference(make_state(sizes, gaps, {grad_type}, copy, 0), 3, what);
    }
  }
}

TEST(FusedAdamWCuda, MatchesReferenceWithMoreGradientsThanOneLaunchAndSomeUndefined) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(1);
  std::vector<int64_t> sizes, gaps;
  for (int64_t i = 0; i < 300; ++i) {
    sizes.push_back(1 + (i * 7919) % 3001);
    gaps.push_back((i * 13) % 6);
  }
  auto state = make_state(sizes, gaps, {torch::kFloat32, torch::kBFloat16, torch::kFloat32}, torch::kBFloat16, 7);
  for (size_t i = 0; i < state.grads.size(); i += 17) state.grads[i] = at::Tensor();
  check_against_reference(state, 3, "300 gradients, mixed fp32/bf16, every 17th undefined");
}

TEST(FusedAdamWCuda, UnalignedFlatBuffersTakeTheElementPath) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(2);
  auto state = make_state({100, 37, 4096}, {1, 0, 2}, {torch::kFloat32}, torch::kBFloat16, 0);
  // Views one element into their storage: no buffer is 16-byte aligned any more.
  const int64_t n = state.params.numel() - 1;
  state.params = state.params.narrow(0, 1, n);
  state.m = state.m.narrow(0, 1, n);
  state.v = state.v.narrow(0, 1, n);
  state.copy = state.copy.narrow(0, 1, n);
  check_against_reference(state, 2, "unaligned flat buffers");
}

TEST(FusedAdamWCuda, OptimizerClassMatchesItsCpuTwin) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
  torch::manual_seed(3);
  const std::vector<std::vector<int64_t>> shapes = {{64, 3}, {5}, {1}, {17, 9}};
  const std::vector<int64_t> offsets = {200, 0, 199, 6};  // any order, with gaps
  auto make = [&](const torch::Device& device, const at::Tensor& init) {
    auto flat = init.to(device, false, true);
    std::vector<at::Tensor> views;
    for (size_t i = 0; i < shapes.size(); ++i) {
      views.push_back(
          flat.narrow(0, offsets[i], c10::multiply_integers(shapes[i])).view(shapes[i]).detach().requires_grad_(true));
    }
    return std::pair{flat, views};
  };
  const auto init = torch::randn({400});
  auto [flat_gpu, views_gpu] = make(torch::Device(torch::kCUDA), init);
  auto [flat_cpu, views_cpu] = make(torch::Device(torch::kCPU), init);
  auto copy_gpu = torch::empty({400}, flat_gpu.options().dtype(torch::kBFloat16));
  fused::FusedAdamW gpu(flat_gpu, views_gpu, copy_gpu, test_options());
  fused::FusedAdamW cpu(flat_cpu, views_cpu, at::Tensor(), test_options());
  for (int t = 0; t < 3; ++t) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const auto g = torch::randn(shapes[i]);
      views_cpu[i].mutable_grad() = g;
      views_gpu[i].mutable_grad() = g.cuda();
    }
    gpu.step();
    cpu.step();
  }
  EXPECT_EQ(gpu.step_count(), 3);
  const double change = max_abs(flat_cpu - init);
  EXPECT_LE(max_abs(flat_gpu.cpu() - flat_cpu), 1e-4 * change);
  EXPECT_LE(max_abs(gpu.first_moment().cpu() - cpu.first_moment()), 1e-5 * max_abs(cpu.first_moment()));
  EXPECT_TRUE(torch::equal(copy_gpu.cpu(), flat_gpu.cpu().to(torch::kBFloat16)));
}

// The whole update (counter included) captured once and replayed twice gives the bits of two
// eager updates: no host synchronisation, and the counter moves on the device.
TEST(FusedAdamWCuda, GraphReplaysEqualEagerUpdates) {
  if (no_gpu()) GTEST_SKIP() << "no CUDA device visible to this build";
#ifndef STEPSCOPE_WITH_CUDA
  GTEST_SKIP() << "a CPU build";
#else
  torch::manual_seed(4);
  const auto options = test_options();
  const State initial = make_state({1, 3, 4099, 100000, 7}, {0, 2, 1}, {torch::kFloat32, torch::kBFloat16},
                                   torch::kBFloat16, 0);
  const auto cuda = torch::Device(torch::kCUDA);
  // Gradient values of the two updates (both sides refill the same tensors in place).
  std::vector<std::vector<at::Tensor>> values(2);
  for (auto& step_values : values) {
    for (const auto& g : initial.grads) step_values.push_back(torch::randn(g.sizes(), g.options()));
  }
  auto set_grads = [](State& s, const std::vector<at::Tensor>& v) {
    for (size_t i = 0; i < s.grads.size(); ++i) s.grads[i].copy_(v[i]);
  };
  // Warm-up outside the capture (kernels loaded, occupancy asked), on a throwaway copy.
  {
    State warm = initial.to(cuda);
    update(warm, options);
  }
  State eager = initial.to(cuda);
  State graphed = initial.to(cuda);
  torch::cuda::synchronize();
  for (const auto& v : values) {
    set_grads(eager, v);
    update(eager, options);
  }

  at::cuda::CUDAGraph graph;
  auto side = c10::cuda::getStreamFromPool();
  {
    const c10::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin();
    update(graphed, options);
    graph.capture_end();
  }
  torch::cuda::synchronize();
  EXPECT_EQ(graphed.step.item<int64_t>(), 0) << "capturing must not run the update";
  for (const auto& v : values) {
    set_grads(graphed, v);
    graph.replay();
  }
  torch::cuda::synchronize();
  EXPECT_EQ(graphed.step.item<int64_t>(), 2);
  EXPECT_TRUE(torch::equal(graphed.params, eager.params));
  EXPECT_TRUE(torch::equal(graphed.m, eager.m));
  EXPECT_TRUE(torch::equal(graphed.v, eager.v));
  EXPECT_TRUE(torch::equal(graphed.copy, eager.copy));
#endif
}
