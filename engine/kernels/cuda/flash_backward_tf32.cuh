// FlashAttention-2 backward for fp32 inputs on tensor cores (3xTF32, flash_tf32x3.cuh), the
// tensor-core backward's scheme: one CTA per (key tile, batch*head), each warp owning 16 keys
// and their dK, dV in registers while the query tiles stream through shared memory. P^T and
// dS^T (keys as rows) feed dV += P^T dO and dK += dS^T Q from registers; dQ += dS K reads dS
// from shared memory and adds into the fp32 accumulator with atomics.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_tf32x3.cuh"
#include "kernels/cuda/flash_tile_io.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cmath>

namespace stepscope::kernels::flash {

// acc (16 query rows x kTiles*8 columns of K) += dS (rows `ds_rows`, kBlockN keys) K, with the
// key dimension permuted (flash_tf32x3.cuh): a thread's A values are the adjacent keys 2t, 2t+1
// (one 8-byte load), its B values K rows 2t and 2t+1.
template <int kKeys, int kTiles, int kDsStride, int kStride>
__device__ __forceinline__ void tf32x3_ds_k(float (&acc)[kTiles][4], const float* ds_rows,
                                            const float* k_cols, int lane) {
  const int g = lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int ks = 0; ks < kKeys / 8; ++ks) {
    const float2 lo = *reinterpret_cast<const float2*>(ds_rows + g * kDsStride + ks * 8 + 2 * t);
    const float2 hi = *reinterpret_cast<const float2*>(ds_rows + (g + 8) * kDsStride + ks * 8 + 2 * t);
    const Tf32A a = split_a(lo.x, hi.x, lo.y, hi.y);
    const float* b0_row = k_cols + (ks * 8 + 2 * t) * kStride + g;
#pragma unroll
    for (int n = 0; n < kTiles; ++n) mma_tf32x3(acc[n], a, b0_row[n * 8], b0_row[kStride + n * 8]);
  }
}

template <int kHeadDim>
__global__ void __launch_bounds__(Tf32BackwardTraits<kHeadDim>::kThreads)
    flash_backward_tf32_kernel(const BackwardParams p) {
  using Tr = Tf32BackwardTraits<kHeadDim>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStride = Tr::kSmemStride;
  constexpr int kQueryTiles = kBlockM / 8;  // n8 tiles of S^T per warp
  constexpr int kDimTiles = kHeadDim / 8;

  extern __shared__ __align__(16) unsigned char smem_bytes[];
  float* s_k = reinterpret_cast<float*>(smem_bytes);
  float* s_v = s_k + Tr::kKvElems;
  float* s_q = s_v + Tr::kKvElems;       // two buffers
  float* s_do = s_q + 2 * Tr::kQElems;   // two buffers
  float* s_ds = s_do + 2 * Tr::kQElems;  // dS as (query, key)
  float* s_lse = s_ds + Tr::kDsElems;    // two buffers, lse*log2(e)
  float* s_d = s_lse + 2 * kBlockM;      // two buffers

  const int tid = threadIdx.x;
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;

  const TileOfBlock assigned = backward_tile_of_block(static_cast<int>(blockIdx.x), p.key_tiles, p.head_group);
  const int bh = assigned.bh;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int n0 = assigned.tile * kBlockN;
  const int warp_key0 = warp * 16;

  const float* q = p.q.head<const float>(batch, head);
  const float* d_o = p.d_o.head<const float>(batch, head);
  const float* lse = p.lse + static_cast<int64_t>(bh) * p.seq_q;
  const float* d_rowsum = p.d_rowsum + static_cast<int64_t>(bh) * p.seq_q;
  float* dq_accum = p.dq_accum + static_cast<int64_t>(bh) * p.seq_q * p.head_dim;

  load_tile_async<float, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_k, p.k.head<const float>(batch, head), p.k.row_stride, n0, p.seq_k, p.head_dim,
      p.vector_loads, tid);
  load_tile_async<float, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_v, p.v.head<const float>(batch, head), p.v.row_stride, n0, p.seq_k, p.head_dim,
      p.vector_loads, tid);

  // Queries before n0 cannot see any of these keys under causal masking.
  const int m_begin = p.causal ? (n0 / kBlockM) * kBlockM : 0;
  // Rows past seq_q get lse = +inf (P = 0 there) and D = 0.
  auto load_query_tile = [&](int m0, int buf) {
    load_tile_async<float, kBlockM, kHeadDim, kStride, Tr::kThreads>(
        s_q + buf * Tr::kQElems, q, p.q.row_stride, m0, p.seq_q, p.head_dim, p.vector_loads, tid);
    load_tile_async<float, kBlockM, kHeadDim, kStride, Tr::kThreads>(
        s_do + buf * Tr::kQElems, d_o, p.d_o.row_stride, m0, p.seq_q, p.head_dim,
        p.vector_loads, tid);
    for (int r = tid; r < kBlockM; r += Tr::kThreads) {
      const int row = m0 + r;
      s_lse[buf * kBlockM + r] = row < p.seq_q ? lse[row] * static_cast<float>(M_LOG2E) : INFINITY;
      s_d[buf * kBlockM + r] = row < p.seq_q ? d_rowsum[row] : 0.f;
    }
  };
  if (m_begin < p.seq_q) load_query_tile(m_begin, 0);
  cp_async_commit();

  float dk_acc[kDimTiles][4];
  float dv_acc[kDimTiles][4];
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk_acc[n][e] = dv_acc[n][e] = 0.f;

  const float* k_rows = s_k + warp_key0 * kStride;
  const float* v_rows = s_v + warp_key0 * kStride;
  // dQ = dS K is split over warps by row group (16 queries) and column range.
  const int dq_row_group = warp % Tr::kDqRowGroups;
  const int dq_col0 = (warp / Tr::kDqRowGroups) * Tr::kDqColsPerWarp;

  int buf = 0;
  for (int m0 = m_begin; m0 < p.seq_q; m0 += kBlockM, buf ^= 1) {
    cp_async_wait_all();
    __syncthreads();  // tile m0 is visible; every warp is done with the other buffer and dS
    if (m0 + kBlockM < p.seq_q) {
      load_query_tile(m0 + kBlockM, buf ^ 1);
      cp_async_commit();
    }
    const float* q_tile = s_q + buf * Tr::kQElems;
    const float* do_tile = s_do + buf * Tr::kQElems;
    const float* lse_tile = s_lse + buf * kBlockM;
    const float* d_tile = s_d + buf * kBlockM;

    // P^T = exp(scale * K Q^T - lse): rows = this warp's keys, columns = the tile's queries.
    float p_t[kQueryTiles][4];
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) p_t[n][e] = 0.f;
    tf32x3_a_bt<kHeadDim / 8, kQueryTiles, kStride, kStride, 4>(p_t, k_rows, q_tile, lane);
    const bool needs_mask = n0 + kBlockN > p.seq_k || (p.causal && n0 + kBlockN - 1 > m0);
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int query = n * 8 + 2 * t + (e & 1);
        const int key = n0 + warp_key0 + g + (e >> 1) * 8;
        const bool hidden = needs_mask && (key >= p.seq_k || (p.causal && key > m0 + query));
        p_t[n][e] = hidden ? 0.f : exp2f(fmaf(p_t[n][e], p.scale_log2, -lse_tile[query]));
      }

    tf32x3_regs_b<kQueryTiles, kDimTiles, kStride>(dv_acc, p_t, do_tile, lane);

    // dS^T = P^T * (V dO^T - D), kept in dp_t and stored as (query, key) for dQ.
    float dp_t[kQueryTiles][4];
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) dp_t[n][e] = 0.f;
    tf32x3_a_bt<kHeadDim / 8, kQueryTiles, kStride, kStride, 4>(dp_t, v_rows, do_tile, lane);
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int query = n * 8 + 2 * t + (e & 1);
        dp_t[n][e] = p_t[n][e] * (dp_t[n][e] - d_tile[query]);
        s_ds[query * Tr::kDsStride + warp_key0 + g + (e >> 1) * 8] = dp_t[n][e];
      }

    tf32x3_regs_b<kQueryTiles, kDimTiles, kStride>(dk_acc, dp_t, q_tile, lane);
    __syncthreads();  // all of dS is in shared memory

    // In chunks of 32 columns, which keeps dQ's registers apart from dK/dV's under 255.
#pragma unroll
    for (int c0 = dq_col0; c0 < dq_col0 + Tr::kDqColsPerWarp; c0 += Tr::kDqChunk) {
      float dq[Tr::kDqChunk / 8][4];
#pragma unroll
      for (int n = 0; n < Tr::kDqChunk / 8; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) dq[n][e] = 0.f;
      tf32x3_ds_k<kBlockN, Tr::kDqChunk / 8, Tr::kDsStride, kStride>(
          dq, s_ds + dq_row_group * 16 * Tr::kDsStride, s_k + c0, lane);
#pragma unroll
      for (int n = 0; n < Tr::kDqChunk / 8; ++n)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int row = m0 + dq_row_group * 16 + g + r * 8;
          const int col = c0 + n * 8 + 2 * t;  // head_dim is a multiple of 8: both or neither
          if (row < p.seq_q && col < p.head_dim) {
            atomic_add_pair(dq_accum + static_cast<int64_t>(row) * p.head_dim + col, dq[n][2 * r],
                            dq[n][2 * r + 1]);
          }
        }
    }
  }

  // Stage dK (scaled) and dV through this warp's own K/V rows; other warps read all of K in
  // the dQ step, hence the barrier first (and the wait: with no query tile, K/V may still be
  // arriving).
  cp_async_wait_all();
  __syncthreads();
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int offset = (warp_key0 + g + r * 8) * kStride + n * 8 + 2 * t;
      *reinterpret_cast<float2*>(s_k + offset) =
          make_float2(dk_acc[n][2 * r] * p.scale, dk_acc[n][2 * r + 1] * p.scale);
      *reinterpret_cast<float2*>(s_v + offset) = make_float2(dv_acc[n][2 * r], dv_acc[n][2 * r + 1]);
    }
  __syncwarp();
  store_warp_rows<float, kHeadDim, kStride>(p.dk.head<float>(batch, head), p.dk.row_stride, s_k,
                                            warp_key0, n0, p.seq_k, p.head_dim, p.vector_loads, lane);
  store_warp_rows<float, kHeadDim, kStride>(p.dv.head<float>(batch, head), p.dv.row_stride, s_v,
                                            warp_key0, n0, p.seq_k, p.head_dim, p.vector_loads, lane);
}

}  // namespace stepscope::kernels::flash
