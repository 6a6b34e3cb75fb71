// Where the host time of a short attention backward goes, ours against SDPA's (a device probe,
// not a test; built on request: `cmake --build build --target attention_host_probe`).
//
// The seeds' short rows (batch 1, one head, seq 128-1024) take 0.06-0.17 ms per backward in the
// sweep while their kernels take 20-45 us: the rest is the host. For each implementation and
// shape, on the sweep's (batch, heads, seq, d) bf16 inputs with one head:
//   queued   the wall time per o.backward(dO) issued back to back (host-bound: the kernels
//            finish before the next call is ready), the host's cost per backward;
//   idle     a synchronised backward as the sweep times it, wall clock, median;
//   wrapper  flash only: flash_backward_gpu called directly (allocations and launches, no autograd).
// Usage: attention_host_probe [REPS]   (needs a CUDA device)
#include <ATen/cuda/CUDAContext.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "attention/attend.h"
#include "attention/attention_impl.h"
#include "attention/cuda/flash_attention_gpu.h"

namespace {

using stepscope::AttentionImpl;
using Clock = std::chrono::steady_clock;

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0.0 : values[values.size() / 2];
}

struct Inputs {
  at::Tensor q, k, v, d_o;
};

Inputs make_inputs(int64_t seq, int64_t d) {
  const auto options = torch::TensorOptions().dtype(torch::kBFloat16).device(torch::kCUDA);
  Inputs in;
  in.q = torch::randn({1, 1, seq, d}, options).requires_grad_(true);
  in.k = torch::randn({1, 1, seq, d}, options).requires_grad_(true);
  in.v = torch::randn({1, 1, seq, d}, options).requires_grad_(true);
  in.d_o = torch::randn({1, 1, seq, d}, options);
  return in;
}

void clear_grads(Inputs& in) {
  for (auto* t : {&in.q, &in.k, &in.v}) t->mutable_grad() = at::Tensor();
}

void probe(AttentionImpl impl, int64_t seq, int64_t d, int reps) {
  Inputs in = make_inputs(seq, d);
  for (int i = 0; i < 20; ++i) {  // warm the allocator, the kernels' caches and cuDNN's plans
    stepscope::attend(impl, in.q, in.k, in.v, true).backward(in.d_o);
    clear_grads(in);
  }
  torch::cuda::synchronize();

  std::vector<double> queued, idle;
  for (int i = 0; i < reps; ++i) {
    auto o = stepscope::attend(impl, in.q, in.k, in.v, true);
    const auto start = Clock::now();
    o.backward(in.d_o);
    queued.push_back(micros(Clock::now() - start));
    clear_grads(in);
  }
  torch::cuda::synchronize();
  for (int i = 0; i < reps; ++i) {
    auto o = stepscope::attend(impl, in.q, in.k, in.v, true);
    torch::cuda::synchronize();
    const auto start = Clock::now();
    o.backward(in.d_o);
    torch::cuda::synchronize();
    idle.push_back(micros(Clock::now() - start));
    clear_grads(in);
  }

  double wrapper = 0.0;
  if (impl == AttentionImpl::flash) {
    const auto q = in.q.detach(), k = in.k.detach(), v = in.v.detach();
    const auto fwd = stepscope::flash_forward_gpu(q, k, v, true);
    std::vector<double> calls;
    for (int i = 0; i < reps; ++i) {
      const auto start = Clock::now();
      auto grads = stepscope::flash_backward_gpu(q, k, v, fwd.o, in.d_o, fwd.lse, true);
      calls.push_back(micros(Clock::now() - start));
    }
    torch::cuda::synchronize();
    wrapper = median(calls);
  }
  std::printf("%-5s d=%-3lld s=%-5lld | queued %7.1f us | idle %7.1f us | wrapper %6.1f us\n",
              stepscope::to_string(impl).c_str(), static_cast<long long>(d), static_cast<long long>(seq),
              median(queued), median(idle), wrapper);
}

}  // namespace

int main(int argc, char** argv) {
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "attention_host_probe: no CUDA device\n");
    return 2;
  }
  const int reps = argc > 1 ? std::max(10, std::atoi(argv[1])) : 500;
  for (int64_t d : {64, 128})
    for (int64_t seq : {128, 512, 1024})
      for (AttentionImpl impl : {AttentionImpl::sdpa, AttentionImpl::flash}) probe(impl, seq, d, reps);
  return 0;
}
