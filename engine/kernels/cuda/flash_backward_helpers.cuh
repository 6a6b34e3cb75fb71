// The backward pass's small kernels around the main one: D = rowsum(dO * O) in fp32 before
// it, and dQ = scale * (fp32 accumulator) in the output type and strides after it.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"

#include <cstdint>

namespace stepscope::kernels::flash {

template <typename T>
__device__ __forceinline__ float element_to_float(T x) { return MmaElement<T>::to_float(x); }
template <>
__device__ __forceinline__ float element_to_float<float>(float x) { return x; }

template <typename T>
__device__ __forceinline__ T element_from_float(float x) { return MmaElement<T>::from_float(x); }
template <>
__device__ __forceinline__ float element_from_float<float>(float x) { return x; }

constexpr int kHelperThreads = 256;

// One warp per query row; grid-strided over all batch*heads*seq_q rows.
template <typename T>
__global__ void __launch_bounds__(kHelperThreads) flash_backward_rowsum_kernel(const BackwardParams p) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kHelperThreads / kWarpSize);
  for (int64_t r = (static_cast<int64_t>(blockIdx.x) * kHelperThreads + threadIdx.x) / kWarpSize;
       r < p.rows; r += warps) {
    const int bh = static_cast<int>(r / p.seq_q);
    const int row = static_cast<int>(r % p.seq_q);
    const int batch = bh / p.heads;
    const int head = bh % p.heads;
    const T* o = p.o.head<const T>(batch, head) + static_cast<int64_t>(row) * p.o.row_stride;
    const T* d_o = p.d_o.head<const T>(batch, head) + static_cast<int64_t>(row) * p.d_o.row_stride;
    float sum = 0.f;
    for (int c = lane; c < p.head_dim; c += kWarpSize)
      sum = fmaf(element_to_float(o[c]), element_to_float(d_o[c]), sum);
    sum = warp_sum(sum);
    if (lane == 0) p.d_rowsum[r] = sum;
  }
}

// Grid-strided over all batch*heads*seq_q*head_dim elements of dQ.
template <typename T>
__global__ void __launch_bounds__(kHelperThreads) flash_backward_dq_kernel(const BackwardParams p) {
  const int64_t total = p.rows * p.head_dim;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kHelperThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kHelperThreads + threadIdx.x; i < total;
       i += step) {
    const int64_t r = i / p.head_dim;
    const int col = static_cast<int>(i % p.head_dim);
    const int bh = static_cast<int>(r / p.seq_q);
    const int row = static_cast<int>(r % p.seq_q);
    T* dq = p.dq.head<T>(bh / p.heads, bh % p.heads) + static_cast<int64_t>(row) * p.dq.row_stride;
    dq[col] = element_from_float<T>(p.dq_accum[i] * p.scale);
  }
}

}  // namespace stepscope::kernels::flash
