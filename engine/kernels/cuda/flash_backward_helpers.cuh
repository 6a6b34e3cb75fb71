// The backward pass's small kernels around the main one: before it, D = rowsum(dO * O) in fp32
// with the dQ accumulator's rows zeroed in the same pass (no separate memset launch), and dK, dV
// too when the main kernel adds into them (query splits); after it,
// dQ = scale * (fp32 accumulator) in the output type and strides.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"

#include <cstdint>

namespace stepscope::kernels::flash {

constexpr int kHelperThreads = 256;

// Elements of T in one 16-byte access; each helper thread handles one such chunk of a row.
template <typename T>
constexpr int kChunk = 16 / static_cast<int>(sizeof(T));

// Threads per row of the rowsum kernel: one per 16-byte chunk when the rows allow 16-byte
// loads and that count divides a warp (head_dim a power of two), else a whole warp per row.
template <typename T>
__host__ __device__ inline int rowsum_threads_per_row(const BackwardParams& p) {
  const int chunks = p.head_dim / kChunk<T>;
  const bool pow2 = chunks > 0 && (chunks & (chunks - 1)) == 0 && chunks <= kWarpSize;
  return p.helper_vectors && pow2 ? chunks : kWarpSize;
}

// Grid-strided over warps; each warp takes 32 / threads-per-row consecutive rows per round.
template <typename T>
__global__ void __launch_bounds__(kHelperThreads) flash_backward_rowsum_kernel(const BackwardParams p) {
  const int per_row = rowsum_threads_per_row<T>(p);
  const bool chunked = p.helper_vectors && p.head_dim == per_row * kChunk<T>;
  const int lane = threadIdx.x % kWarpSize, sub = lane % per_row;
  const int rows_per_warp = kWarpSize / per_row;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * kHelperThreads + threadIdx.x) / kWarpSize;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kHelperThreads / kWarpSize);
  for (int64_t base = warp * rows_per_warp; base < p.rows; base += warps * rows_per_warp) {
    const int64_t r = base + lane / per_row;
    float sum = 0.f;
    if (r < p.rows) {
      const int bh = static_cast<int>(r / p.seq_q), row = static_cast<int>(r % p.seq_q);
      const T* o = p.o.head<const T>(bh / p.heads, bh % p.heads) + static_cast<int64_t>(row) * p.o.row_stride;
      const T* d_o = p.d_o.head<const T>(bh / p.heads, bh % p.heads) + static_cast<int64_t>(row) * p.d_o.row_stride;
      float* accum = p.dq_accum + r * p.head_dim;
      if (chunked) {
        const int c = sub * kChunk<T>;
        const uint4 ov = *reinterpret_cast<const uint4*>(o + c);
        const uint4 dv = *reinterpret_cast<const uint4*>(d_o + c);
        const T* oe = reinterpret_cast<const T*>(&ov);
        const T* de = reinterpret_cast<const T*>(&dv);
#pragma unroll
        for (int i = 0; i < kChunk<T>; ++i) sum = fmaf(element_to_float(oe[i]), element_to_float(de[i]), sum);
#pragma unroll
        for (int i = 0; i < kChunk<T>; i += 4) *reinterpret_cast<float4*>(accum + c + i) = float4{0.f, 0.f, 0.f, 0.f};
      } else {
        for (int c = lane; c < p.head_dim; c += kWarpSize) {
          sum = fmaf(element_to_float(o[c]), element_to_float(d_o[c]), sum);
          accum[c] = 0.f;
        }
      }
    }
    for (int offset = per_row / 2; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (r < p.rows && sub == 0) p.d_rowsum[r] = sum;
  }
  if (p.query_splits > 1) {  // the main kernel's CTAs add into dK and dV
    const int64_t per_head = static_cast<int64_t>(p.seq_k) * p.head_dim;
    const int64_t total = p.rows / p.seq_q * per_head;
    const int64_t step = static_cast<int64_t>(gridDim.x) * kHelperThreads;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * kHelperThreads + threadIdx.x; i < total; i += step) {
      const int bh = static_cast<int>(i / per_head);
      const int64_t row = i % per_head / p.head_dim;
      const int col = static_cast<int>(i % p.head_dim);
      p.dk.head<T>(bh / p.heads, bh % p.heads)[row * p.dk.row_stride + col] = element_from_float<T>(0.f);
      p.dv.head<T>(bh / p.heads, bh % p.heads)[row * p.dv.row_stride + col] = element_from_float<T>(0.f);
    }
  }
}

// Grid-strided over 16-byte chunks of dQ (head_dim is a multiple of 8, so a chunk never crosses
// a row): two (bf16/fp16) or one (fp32) float4 of the accumulator in, one chunk of dQ out.
template <typename T>
__global__ void __launch_bounds__(kHelperThreads) flash_backward_dq_kernel(const BackwardParams p) {
  constexpr int kN = kChunk<T>;
  const int64_t total = p.rows * p.head_dim / kN;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kHelperThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kHelperThreads + threadIdx.x; i < total;
       i += step) {
    const int64_t r = i * kN / p.head_dim;
    const int col = static_cast<int>(i * kN % p.head_dim);
    const int bh = static_cast<int>(r / p.seq_q);
    const int row = static_cast<int>(r % p.seq_q);
    T* dq = p.dq.head<T>(bh / p.heads, bh % p.heads) + static_cast<int64_t>(row) * p.dq.row_stride + col;
    const float4* accum = reinterpret_cast<const float4*>(p.dq_accum + i * kN);
    uint4 out;
    T* e = reinterpret_cast<T*>(&out);
#pragma unroll
    for (int j = 0; j < kN / 4; ++j) {
      const float4 a = accum[j];
      e[4 * j] = element_from_float<T>(a.x * p.scale);
      e[4 * j + 1] = element_from_float<T>(a.y * p.scale);
      e[4 * j + 2] = element_from_float<T>(a.z * p.scale);
      e[4 * j + 3] = element_from_float<T>(a.w * p.scale);
    }
    if (p.dq_vectors) {
      *reinterpret_cast<uint4*>(dq) = out;
    } else {
#pragma unroll
      for (int j = 0; j < kN; ++j) dq[j] = e[j];
    }
  }
}

}  // namespace stepscope::kernels::flash
