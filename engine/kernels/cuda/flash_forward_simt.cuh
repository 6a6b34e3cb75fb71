// FlashAttention-2 forward for fp32 inputs with plain fp32 FFMA (no tf32), so results match
// fp32 naive attention to rounding. Same online softmax as the tensor-core kernel; a lane
// owns one key of each 32-key tile for the scores and columns lane, lane+32, ... of O.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cmath>

namespace stepscope::kernels::flash {

// Rows row0 .. row0+kRows-1 of `head` into a tile of stride kStride, zero outside
// (seq, head_dim).
template <int kRows, int kHeadDim, int kStride, int kThreads>
__device__ __forceinline__ void load_tile_f32(float* tile, const float* head, int64_t row_stride,
                                              int row0, int seq, int head_dim, int tid) {
  for (int idx = tid; idx < kRows * kHeadDim; idx += kThreads) {
    const int r = idx / kHeadDim;
    const int col = idx % kHeadDim;
    const int row = row0 + r;
    tile[r * kStride + col] =
        row < seq && col < head_dim ? head[static_cast<int64_t>(row) * row_stride + col] : 0.f;
  }
}

template <int kHeadDim>
__global__ void __launch_bounds__(SimtForwardTraits<kHeadDim>::kThreads)
    flash_forward_simt_kernel(const ForwardParams p) {
  using Tr = SimtForwardTraits<kHeadDim>;
  constexpr int kRows = Tr::kRowsPerWarp;
  constexpr int kCols = Tr::kColsPerLane;

  extern __shared__ __align__(16) unsigned char smem_bytes[];
  float* s_q = reinterpret_cast<float*>(smem_bytes);   // kBlockM x kHeadDim
  float* s_k = s_q + Tr::kBlockM * kHeadDim;            // kBlockN x kKStride
  float* s_v = s_k + Tr::kBlockN * Tr::kKStride;        // kBlockN x kHeadDim

  const int tid = threadIdx.x;
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const TileOfBlock assigned = forward_tile_of_block(static_cast<int>(blockIdx.x), p.row_tiles, p.causal, p.head_group);
  const int bh = assigned.bh;
  const int tile = assigned.tile;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int m0 = tile * Tr::kBlockM;
  const int warp_row0 = warp * kRows;

  const float* k = p.k.head<const float>(batch, head);
  const float* v = p.v.head<const float>(batch, head);
  load_tile_f32<Tr::kBlockM, kHeadDim, kHeadDim, Tr::kThreads>(
      s_q, p.q.head<const float>(batch, head), p.q.row_stride, m0, p.seq_q, p.head_dim, tid);

  // Scores are kept pre-scaled here (s * scale), so max and lse need no further scaling.
  float row_max[kRows], row_sum[kRows], o_acc[kRows][kCols];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    row_max[r] = -INFINITY;
    row_sum[r] = 0.f;
#pragma unroll
    for (int c = 0; c < kCols; ++c) o_acc[r][c] = 0.f;
  }

  const int key_end = p.causal ? min(p.seq_k, m0 + Tr::kBlockM) : p.seq_k;
  for (int n0 = 0; n0 < key_end; n0 += Tr::kBlockN) {
    __syncthreads();  // the previous tile is no longer read
    load_tile_f32<Tr::kBlockN, kHeadDim, Tr::kKStride, Tr::kThreads>(
        s_k, k, p.k.row_stride, n0, p.seq_k, p.head_dim, tid);
    load_tile_f32<Tr::kBlockN, kHeadDim, kHeadDim, Tr::kThreads>(
        s_v, v, p.v.row_stride, n0, p.seq_k, p.head_dim, tid);
    __syncthreads();

    float s[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) s[r] = 0.f;
    const float* k_row = s_k + lane * Tr::kKStride;
    for (int c = 0; c < kHeadDim; ++c) {
      const float kc = k_row[c];
#pragma unroll
      for (int r = 0; r < kRows; ++r) s[r] = fmaf(s_q[(warp_row0 + r) * kHeadDim + c], kc, s[r]);
    }

    const int key = n0 + lane;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int row = m0 + warp_row0 + r;
      const bool visible = key < p.seq_k && !(p.causal && key > row);
      const float scaled = visible ? s[r] * p.scale : -INFINITY;
      const float new_max = fmaxf(row_max[r], warp_max(scaled));
      const float base = new_max == -INFINITY ? 0.f : new_max;  // keeps exp NaN-free
      const float rescale = expf(row_max[r] - base);
      s[r] = expf(scaled - base);
      row_sum[r] = row_sum[r] * rescale + warp_sum(s[r]);
      row_max[r] = new_max;
#pragma unroll
      for (int c = 0; c < kCols; ++c) o_acc[r][c] *= rescale;
    }

    for (int j = 0; j < Tr::kBlockN; ++j) {
      float vj[kCols];
#pragma unroll
      for (int c = 0; c < kCols; ++c) vj[c] = s_v[j * kHeadDim + lane + c * kWarpSize];
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const float pj = __shfl_sync(0xffffffffu, s[r], j);
#pragma unroll
        for (int c = 0; c < kCols; ++c) o_acc[r][c] = fmaf(pj, vj[c], o_acc[r][c]);
      }
    }
  }

  float* o = p.o.head<float>(batch, head);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int row = m0 + warp_row0 + r;
    if (row >= p.seq_q) continue;
    const float inv = row_sum[r] > 0.f ? 1.f / row_sum[r] : 0.f;
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int col = lane + c * kWarpSize;
      if (col < p.head_dim) o[static_cast<int64_t>(row) * p.o.row_stride + col] = o_acc[r][c] * inv;
    }
    if (lane == 0) {
      p.lse[static_cast<int64_t>(bh) * p.seq_q + row] =
          row_sum[r] > 0.f ? row_max[r] + logf(row_sum[r]) : -INFINITY;
    }
  }
}

}  // namespace stepscope::kernels::flash
