// One block per row of logits: an fp32 online max/sum over the row in 16-byte loads, block
// reductions, the row's loss, then (when asked) a second walk over the row that overwrites it with
// (softmax - one_hot) * grad_scale. Rows of more than 32 KiB run 1024-thread blocks, so that the
// rows resident on the GPU at once (2 per SM) stay in L2 between the two walks and the second
// read costs no DRAM traffic; smaller rows run 256 threads (8 rows per SM).
#include "kernels/cuda/fused/cross_entropy_rows_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/cuda/fused/element_io.cuh"
#include "kernels/cuda/fused/fused_cuda_check.h"

namespace stepscope::kernels {

namespace {

using fused::from_float;
using fused::to_float;

// 16 bytes of elements, loaded and stored as one int4 (llm.c's Packed128).
template <class T>
struct alignas(16) Pack {
  static constexpr int kSize = 16 / sizeof(T);
  T v[kSize];

  __device__ __forceinline__ static Pack load(const T* address) {
    const int4 bits = *reinterpret_cast<const int4*>(address);
    Pack p;
    memcpy(&p, &bits, sizeof(bits));
    return p;
  }
  __device__ __forceinline__ void store(T* address) const {
    int4 bits;
    memcpy(&bits, this, sizeof(bits));
    *reinterpret_cast<int4*>(address) = bits;
  }
};

// A running max m and sum s of exp(x - m). Empty: m = -inf, s = 0. The shift is 0 while the max
// is -inf, so -inf elements add exp(-inf) = 0 instead of exp(-inf + inf) = NaN, and NaN elements
// (which fmaxf skips) still turn the sum into NaN.
struct Online {
  float m, s;
};

__device__ __forceinline__ Online empty_online() { return {-INFINITY, 0.f}; }

__device__ __forceinline__ float shift_of(float m) { return m == -INFINITY ? 0.f : m; }

__device__ __forceinline__ Online merge(Online a, Online b) {
  const float m = fmaxf(a.m, b.m);
  const float shift = shift_of(m);
  return {m, a.s * expf(a.m - shift) + b.s * expf(b.m - shift)};
}

template <class T>
__device__ __forceinline__ void add_pack(Online& o, const Pack<T>& p) {
  float x[Pack<T>::kSize];
  float pack_max = -INFINITY;
#pragma unroll
  for (int k = 0; k < Pack<T>::kSize; ++k) {
    x[k] = to_float(p.v[k]);
    pack_max = fmaxf(pack_max, x[k]);
  }
  const float m = fmaxf(o.m, pack_max);
  const float shift = shift_of(m);
  float s = o.s * expf(o.m - shift);
#pragma unroll
  for (int k = 0; k < Pack<T>::kSize; ++k) s += expf(x[k] - shift);
  o = {m, s};
}

__device__ __forceinline__ void add_value(Online& o, float x) { o = merge(o, Online{x, 1.f}); }

// The whole block's (m, s), returned to every thread. `shared` holds one entry per warp.
template <int kThreads>
__device__ Online block_merge(Online o, Online* shared) {
  constexpr int kWarps = kThreads / 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const Online other{__shfl_xor_sync(0xffffffffu, o.m, offset), __shfl_xor_sync(0xffffffffu, o.s, offset)};
    o = merge(o, other);
  }
  if (lane == 0) shared[warp] = o;
  __syncthreads();
  if (warp == 0) {
    o = lane < kWarps ? shared[lane] : empty_online();
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const Online other{__shfl_xor_sync(0xffffffffu, o.m, offset), __shfl_xor_sync(0xffffffffu, o.s, offset)};
      o = merge(o, other);
    }
    if (lane == 0) shared[kWarps] = o;
  }
  __syncthreads();
  return shared[kWarps];
}

// Where a row's 16-byte packs start and end: `head` scalar elements before the first aligned
// element, `packs` packs, then the scalar tail from `tail_start` to vocab.
template <class T>
struct RowLayout {
  int head, packs, tail_start;

  __device__ __forceinline__ RowLayout(const T* row, int vocab) {
    constexpr int kSize = Pack<T>::kSize;
    const auto misaligned = static_cast<int>(reinterpret_cast<uintptr_t>(row) % 16);
    head = min(misaligned == 0 ? 0 : (16 - misaligned) / static_cast<int>(sizeof(T)), vocab);
    packs = (vocab - head) / kSize;
    tail_start = head + packs * kSize;
  }
};

constexpr int kUnroll = 4;  // packs in flight per thread and iteration

template <class T, int kThreads>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    cross_entropy_rows_kernel(T* __restrict__ logits, const int64_t* __restrict__ targets,
                              float* __restrict__ losses, int64_t row_stride, int vocab, float grad_scale) {
  __shared__ Online shared[kThreads / 32 + 1];
  constexpr int kSize = Pack<T>::kSize;
  const int64_t row_index = blockIdx.x;
  T* row = logits + row_index * row_stride;
  const int64_t target = targets[row_index];
  const bool valid = target >= 0 && target < vocab;
  const int tid = threadIdx.x;
  // Read before the reduction's barriers, so before any thread overwrites the row.
  float target_logit = 0.f;
  if (tid == 0 && valid) target_logit = to_float(row[target]);

  const RowLayout<T> layout(row, vocab);
  const T* packs = row + layout.head;
  Online o = empty_online();
  for (int base = tid; base < layout.packs; base += kThreads * kUnroll) {
    Pack<T> p[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int index = base + u * kThreads;
      if (index < layout.packs) p[u] = Pack<T>::load(packs + index * kSize);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (base + u * kThreads < layout.packs) add_pack(o, p[u]);
    }
  }
  // The unaligned head and the tail: fewer than 2 * kSize elements, one per thread.
  if (tid < layout.head) add_value(o, to_float(row[tid]));
  if (tid < vocab - layout.tail_start) add_value(o, to_float(row[layout.tail_start + tid]));

  const Online total = block_merge<kThreads>(o, shared);
  const float lse = total.m + logf(total.s);
  if (tid == 0) losses[row_index] = valid ? lse - target_logit : NAN;
  if (grad_scale == 0.f) return;

  // d loss / d logit_i = softmax_i - [i == target], times grad_scale; a row without a valid
  // target gets NaN throughout.
  const auto gradient = [&](float x, int i) {
    if (!valid) return NAN;
    return (expf(x - lse) - (i == target ? 1.f : 0.f)) * grad_scale;
  };
  T* out_packs = row + layout.head;
  for (int base = tid; base < layout.packs; base += kThreads * kUnroll) {
    Pack<T> p[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int index = base + u * kThreads;
      if (index < layout.packs) p[u] = Pack<T>::load(packs + index * kSize);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int index = base + u * kThreads;
      if (index >= layout.packs) continue;
      Pack<T> g;
      const int first = layout.head + index * kSize;
#pragma unroll
      for (int k = 0; k < kSize; ++k) g.v[k] = from_float<T>(gradient(to_float(p[u].v[k]), first + k));
      g.store(out_packs + index * kSize);
    }
  }
  if (tid < layout.head) row[tid] = from_float<T>(gradient(to_float(row[tid]), tid));
  if (tid < vocab - layout.tail_start) {
    const int i = layout.tail_start + tid;
    row[i] = from_float<T>(gradient(to_float(row[i]), i));
  }
}

template <class T>
void launch(const CrossEntropyRowsArgs& args, cudaStream_t stream) {
  auto* logits = static_cast<T*>(args.logits);
  const auto vocab = static_cast<int>(args.vocab);
  const auto rows = static_cast<unsigned>(args.rows);
  if (args.vocab * static_cast<int64_t>(sizeof(T)) > 32 * 1024) {
    cross_entropy_rows_kernel<T, 1024><<<rows, 1024, 0, stream>>>(logits, args.targets, args.losses,
                                                                   args.row_stride, vocab, args.grad_scale);
  } else {
    cross_entropy_rows_kernel<T, kCrossEntropyRowThreads><<<rows, kCrossEntropyRowThreads, 0, stream>>>(
        logits, args.targets, args.losses, args.row_stride, vocab, args.grad_scale);
  }
  fused::check_cuda(cudaGetLastError(), "cross-entropy rows: launching the kernel");
}

}  // namespace

void cross_entropy_rows_cuda(const CrossEntropyRowsArgs& args, cudaStream_t stream) {
  const auto refuse = [](const std::string& why) { throw std::runtime_error("cross-entropy rows: " + why); };
  if (args.rows < 0 || args.vocab < 1) refuse("rows must be >= 0 and vocab >= 1");
  if (args.vocab > INT_MAX) refuse("a row of more than 2^31 - 1 logits is not supported");
  if (args.rows > INT_MAX) refuse("more than 2^31 - 1 rows in one call are not supported");
  if (args.row_stride < args.vocab && args.rows > 1) refuse("rows overlap (row_stride < vocab)");
  if (args.rows == 0) return;
  if (!args.logits || !args.targets || !args.losses) refuse("a null pointer was given");
  switch (args.type) {
    case ElementType::f32: launch<float>(args, stream); break;
    case ElementType::f16: launch<__half>(args, stream); break;
    case ElementType::bf16: launch<__nv_bfloat16>(args, stream); break;
  }
}

}  // namespace stepscope::kernels
