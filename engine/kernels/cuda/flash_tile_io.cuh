// Moving (rows x head_dim) tiles between global memory and padded shared-memory tiles for the
// tensor-core kernels (fp16/bf16, and fp32 for the 3xTF32 ones). Rows past the sequence and columns past head_dim read as zero, so the
// padded parts of a tile add nothing to any product. When a pointer or stride does not allow
// 16-byte accesses the same copies run element by element.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_traits.h"

#include <cstdint>

namespace stepscope::kernels::flash {

// Elements of T in one 16-byte copy.
template <typename T>
constexpr int kElemsPer16B = 16 / static_cast<int>(sizeof(T));

// Starts copying rows row0 .. row0+kRows-1 of `head` (row 0 of one (batch, head)) into `tile`;
// the caller commits/waits the cp.async group and synchronises before reading.
template <typename T, int kRows, int kHeadDim, int kStride, int kThreads>
__device__ __forceinline__ void load_tile_async(T* tile, const T* head, int64_t row_stride,
                                                int row0, int seq, int head_dim,
                                                bool vector_loads, int tid) {
  constexpr int kPer = kElemsPer16B<T>;
  constexpr int kChunks = kHeadDim / kPer;  // 16-byte chunks per row
  for (int idx = tid; idx < kRows * kChunks; idx += kThreads) {
    const int r = idx / kChunks;
    const int col = (idx % kChunks) * kPer;
    const int row = row0 + r;
    const bool valid = row < seq && col < head_dim;
    T* dst = tile + r * kStride + col;
    const T* src = head + static_cast<int64_t>(row) * row_stride + col;
    if (vector_loads) {
      cp_async_16(dst, valid ? src : head, valid);
    } else {
#pragma unroll
      for (int e = 0; e < kPer; ++e) dst[e] = valid ? src[e] : element_from_float<T>(0.f);
    }
  }
}

// One warp writes tile rows first .. first+15 (global rows row0+first ..) to `head`.
template <typename T, int kHeadDim, int kStride>
__device__ __forceinline__ void store_warp_rows(T* head, int64_t row_stride, const T* tile,
                                                int first, int row0, int seq, int head_dim,
                                                bool vector_loads, int lane) {
  constexpr int kPer = kElemsPer16B<T>;
  constexpr int kChunks = kHeadDim / kPer;
  for (int idx = lane; idx < 16 * kChunks; idx += kWarpSize) {
    const int r = first + idx / kChunks;
    const int col = (idx % kChunks) * kPer;
    const int row = row0 + r;
    if (row >= seq || col >= head_dim) continue;
    const T* src = tile + r * kStride + col;
    T* dst = head + static_cast<int64_t>(row) * row_stride + col;
    if (vector_loads) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else {
#pragma unroll
      for (int e = 0; e < kPer; ++e) dst[e] = src[e];
    }
  }
}

}  // namespace stepscope::kernels::flash
