// The timings of flash_kernel_check --bench and --bench-one: one shape's forward and backward
// back to back (the kernels' throughput), a forward after a backward on an idle device (the
// sweep's pattern), and a backward from an idle device with its host time per call (what short,
// launch-bound shapes cost). Included by flash_kernel_check.cu only.
#pragma once

#include "flash_check_support.h"
#include "kernels/cuda/flash_attention_cuda.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace flash_check {

// Times forward and backward of one shape: 3 warm-up runs, then 20 timed repetitions.
void bench(KernelPath path, int64_t heads, int64_t seq, int64_t head_dim, bool causal, int reps = 20,
           ElementType type = ElementType::bf16) {
  const AttentionShape shape = make_shape(1, heads, seq, seq, head_dim, causal);
  const Strides s = make_strides(shape, seq, Layout::contiguous);
  const int64_t elems = view_elements(shape, seq, s);
  std::vector<float> host(static_cast<size_t>(elems));
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  const int64_t bytes = elems * static_cast<int64_t>(element_bytes(type));
  DeviceBuffer q(bytes), k(bytes), v(bytes), o(bytes), d_o(bytes);
  DeviceBuffer dq(bytes), dk(bytes), dv(bytes), lse(heads * seq * 4);
  DeviceBuffer workspace(flash_backward_workspace_floats(shape) * 4);
  // Independent inputs, as the sweeps use (Q = K = V would put the softmax on the diagonal).
  for (DeviceBuffer* b : {&q, &k, &v, &d_o}) {
    for (float& x : host) x = normal(rng);
    b->upload(encode(type, host));
  }

  FlashForwardArgs fwd;
  fwd.shape = shape;
  fwd.type = type;
  fwd.path = path;
  fwd.softmax_scale = 1.f / std::sqrt(static_cast<float>(head_dim));
  fwd.q = q.get();
  fwd.k = k.get();
  fwd.v = v.get();
  fwd.o = o.get();
  fwd.lse = static_cast<float*>(lse.get());
  fwd.q_strides = fwd.k_strides = fwd.v_strides = fwd.o_strides = s;
  DeviceBuffer fwd_workspace(flash_forward_workspace_floats(fwd) * 4);
  fwd.workspace = static_cast<float*>(fwd_workspace.get());
  FlashBackwardArgs bwd;
  bwd.shape = shape;
  bwd.type = type;
  bwd.path = path;
  bwd.softmax_scale = fwd.softmax_scale;
  bwd.q = q.get();
  bwd.k = k.get();
  bwd.v = v.get();
  bwd.o = o.get();
  bwd.d_o = d_o.get();
  bwd.lse = fwd.lse;
  bwd.dq = dq.get();
  bwd.dk = dk.get();
  bwd.dv = dv.get();
  bwd.workspace = static_cast<float*>(workspace.get());
  bwd.q_strides = bwd.k_strides = bwd.v_strides = bwd.o_strides = bwd.d_o_strides = s;
  bwd.dq_strides = bwd.dk_strides = bwd.dv_strides = s;

  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  auto time_ms = [&](auto&& run) {
    for (int i = 0; i < 3; ++i) run();
    check_cuda(cudaEventRecord(start), "cudaEventRecord");
    for (int i = 0; i < reps; ++i) run();
    check_cuda(cudaEventRecord(stop), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return static_cast<double>(ms) / reps;
  };
  const double fwd_ms = time_ms([&] { flash_forward_cuda(fwd, nullptr); });
  const double bwd_ms = time_ms([&] { flash_backward_cuda(bwd, nullptr); });
  // Mean time of `run` started on an idle device (after `before` and a synchronise), between
  // events recorded around its launches.
  auto idle_ms = [&](auto&& before, auto&& run, int reps) {
    double total = 0;
    for (int i = 0; i < reps; ++i) {
      before();
      check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      check_cuda(cudaEventRecord(start), "cudaEventRecord");
      run();
      check_cuda(cudaEventRecord(stop), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      total += ms;
    }
    return total / reps;
  };
  const auto backward = [&] { flash_backward_cuda(bwd, nullptr); };
  // A backward from an idle device, as the sweep times it less autograd's own work, and the
  // host's share: the launcher's time per call, calls queued back to back.
  constexpr int kIdleReps = 20;
  const double bwd_idle_ms = idle_ms([] {}, backward, kIdleReps);
  const auto host_start = std::chrono::steady_clock::now();
  for (int i = 0; i < kIdleReps; ++i) backward();
  const double bwd_host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count() / kIdleReps;
  // The sweep's pattern for the forward: each starts on a device left idle after a backward.
  const double fwd_after_bwd_ms = idle_ms(backward, [&] { flash_forward_cuda(fwd, nullptr); }, 10);
  check_cuda(cudaDeviceSynchronize(), "kernels");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);

  const double fwd_flops = 4.0 * heads * static_cast<double>(seq) * seq * head_dim * (causal ? 0.5 : 1.0);
  const double bwd_flops = 2.5 * fwd_flops;
  std::printf("%-8s %s %s b=1 h=%lld s=%lld d=%lld | forward %.3f ms %.1f TFLOP/s | backward "
              "%.3f ms %.1f TFLOP/s | forward after a backward %.3f ms | backward from idle %.4f ms, "
              "host %.4f ms\n",
              path_name(path), type_name(type), causal ? "causal" : "full", static_cast<long long>(heads),
              static_cast<long long>(seq), static_cast<long long>(head_dim), fwd_ms,
              fwd_flops / fwd_ms * 1e-9, bwd_ms, bwd_flops / bwd_ms * 1e-9, fwd_after_bwd_ms, bwd_idle_ms,
              bwd_host_ms);
}

}  // namespace flash_check
