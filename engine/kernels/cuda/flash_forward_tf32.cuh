// FlashAttention-2 forward for fp32 inputs on tensor cores (3xTF32, flash_tf32x3.cuh): the
// tensor-core forward's algorithm, each warp keeping 16 query rows' O, row max and row sum in
// registers while fp32 K/V tiles stream through shared memory.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_tf32x3.cuh"
#include "kernels/cuda/flash_tile_io.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cmath>

namespace stepscope::kernels::flash {

template <int kHeadDim>
__global__ void __launch_bounds__(Tf32ForwardTraits<kHeadDim>::kThreads)
    flash_forward_tf32_kernel(const ForwardParams p) {
  using Tr = Tf32ForwardTraits<kHeadDim>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStride = Tr::kSmemStride;
  constexpr int kScoreTiles = kBlockN / 8;
  constexpr int kOutTiles = kHeadDim / 8;

  extern __shared__ __align__(16) unsigned char smem_bytes[];
  float* s_q = reinterpret_cast<float*>(smem_bytes);
  float* s_k = s_q + Tr::kQElems;       // two buffers
  float* s_v = s_k + 2 * Tr::kKvElems;  // two buffers

  const int tid = threadIdx.x;
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;

  const TileOfBlock assigned = forward_tile_of_block(static_cast<int>(blockIdx.x), p.row_tiles, p.causal);
  const int bh = assigned.bh;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int m0 = assigned.tile * kBlockM;

  const float* q = p.q.head<const float>(batch, head);
  const float* k = p.k.head<const float>(batch, head);
  const float* v = p.v.head<const float>(batch, head);

  const int key_end = p.causal ? min(p.seq_k, m0 + kBlockM) : p.seq_k;  // >= 1
  const int key_tiles = (key_end + kBlockN - 1) / kBlockN;

  load_tile_async<float, kBlockM, kHeadDim, kStride, Tr::kThreads>(
      s_q, q, p.q.row_stride, m0, p.seq_q, p.head_dim, p.vector_loads, tid);
  load_tile_async<float, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_k, k, p.k.row_stride, 0, p.seq_k, p.head_dim, p.vector_loads, tid);
  load_tile_async<float, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_v, v, p.v.row_stride, 0, p.seq_k, p.head_dim, p.vector_loads, tid);
  cp_async_commit();

  float o_acc[kOutTiles][4];
#pragma unroll
  for (int n = 0; n < kOutTiles; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) o_acc[n][e] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY};  // log2 units of scale * score, rows g and g+8
  float row_sum[2] = {0.f, 0.f};              // this thread's share until the end

  const int warp_row0 = warp * 16;
  const float* q_rows = s_q + warp_row0 * kStride;

  for (int j = 0; j < key_tiles; ++j) {
    cp_async_wait_all();
    __syncthreads();  // tile j is visible, and every warp is done with tile j-1's buffer
    if (j + 1 < key_tiles) {
      const int buf = (j + 1) & 1;
      load_tile_async<float, kBlockN, kHeadDim, kStride, Tr::kThreads>(
          s_k + buf * Tr::kKvElems, k, p.k.row_stride, (j + 1) * kBlockN, p.seq_k, p.head_dim,
          p.vector_loads, tid);
      load_tile_async<float, kBlockN, kHeadDim, kStride, Tr::kThreads>(
          s_v + buf * Tr::kKvElems, v, p.v.row_stride, (j + 1) * kBlockN, p.seq_k, p.head_dim,
          p.vector_loads, tid);
      cp_async_commit();
    }
    const float* k_tile = s_k + (j & 1) * Tr::kKvElems;
    const float* v_tile = s_v + (j & 1) * Tr::kKvElems;
    const int n0 = j * kBlockN;

    float s[kScoreTiles][4];
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[n][e] = 0.f;
    tf32x3_a_bt<kHeadDim / 8, kScoreTiles, kStride, kStride>(s, q_rows, k_tile, lane);

    // Scale into log2 units, then mask: keys past seq_k and (causal) after the query get -inf.
    const bool needs_mask = n0 + kBlockN > p.seq_k || (p.causal && n0 + kBlockN - 1 > m0);
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[n][e] *= p.scale_log2;
        if (needs_mask) {
          const int key = n0 + n * 8 + 2 * t + (e & 1);
          const int row = m0 + warp_row0 + g + (e >> 1) * 8;
          if (key >= p.seq_k || (p.causal && key > row)) s[n][e] = -INFINITY;
        }
      }

#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int n = 0; n < kScoreTiles; ++n)
        tile_max = fmaxf(tile_max, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
      const float new_max = fmaxf(row_max[r], quad_max(tile_max));
      const float base = new_max == -INFINITY ? 0.f : new_max;  // a row with no key yet
      const float rescale = exp2f(row_max[r] - base);
      row_max[r] = new_max;
      float sum = 0.f;
#pragma unroll
      for (int n = 0; n < kScoreTiles; ++n)
#pragma unroll
        for (int e = 2 * r; e < 2 * r + 2; ++e) {
          s[n][e] = exp2f(s[n][e] - base);
          sum += s[n][e];
        }
      row_sum[r] = row_sum[r] * rescale + sum;
#pragma unroll
      for (int n = 0; n < kOutTiles; ++n) {
        o_acc[n][2 * r] *= rescale;
        o_acc[n][2 * r + 1] *= rescale;
      }
    }

    tf32x3_regs_b<kScoreTiles, kOutTiles, kStride>(o_acc, s, v_tile, lane);
  }

  // Normalise, write lse, and stage O through this warp's own Q rows for 16-byte stores, once
  // every lane's last ldmatrix of them is done.
  __syncwarp();
  float* o_stage = s_q + warp_row0 * kStride;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    const int local = g + r * 8;
#pragma unroll
    for (int n = 0; n < kOutTiles; ++n) {
      *reinterpret_cast<float2*>(o_stage + local * kStride + n * 8 + 2 * t) =
          make_float2(o_acc[n][2 * r] * inv, o_acc[n][2 * r + 1] * inv);
    }
    const int row = m0 + warp_row0 + local;
    if (t == 0 && row < p.seq_q) {
      p.lse[static_cast<int64_t>(bh) * p.seq_q + row] =
          sum > 0.f ? row_max[r] * static_cast<float>(M_LN2) + logf(sum) : -INFINITY;
    }
  }
  __syncwarp();
  store_warp_rows<float, kHeadDim, kStride>(p.o.head<float>(batch, head), p.o.row_stride, s_q,
                                            warp_row0, m0, p.seq_q, p.head_dim, p.vector_loads, lane);
}

}  // namespace stepscope::kernels::flash
