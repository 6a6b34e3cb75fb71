// FlashAttention-2 backward on tensor cores (fp16/bf16 inputs with fp32 accumulation, or fp32
// inputs on 3xTF32: flash_mma_ops.cuh). One CTA per (key tile, batch*head); each warp owns 16
// keys and keeps their dK, dV in registers while the query tiles stream through shared memory.
// Working with transposed scores (keys as rows) puts P^T and dS^T in accumulator layout, which
// feeds dV += P^T dO and dK += dS^T Q from registers. dQ += dS K goes through shared memory and
// fp32 atomics. fp32 grids with fewer CTAs than the GPU holds split each key tile's query walk
// over several CTAs (BackwardParams::query_splits).
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_mma_ops.cuh"
#include "kernels/cuda/flash_tile_io.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cmath>
#include <type_traits>

namespace stepscope::kernels::flash {

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(TensorCoreBackwardTraits<T, kHeadDim>::kThreads)
    flash_backward_mma_kernel(const BackwardParams p) {
  using Tr = TensorCoreBackwardTraits<T, kHeadDim>;
  using Ops = MmaOps<T>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStride = Tr::kSmemStride;
  constexpr int kQueryTiles = kBlockM / 8;  // n8 tiles of S^T per warp
  constexpr int kDimTiles = kHeadDim / 8;

  extern __shared__ __align__(16) unsigned char smem_bytes[];
  T* s_k = reinterpret_cast<T*>(smem_bytes);
  T* s_v = s_k + Tr::kKvElems;
  constexpr int kQStages = Tr::kQStages;
  T* s_q = s_v + Tr::kKvElems;                // kQStages buffers
  T* s_do = s_q + kQStages * Tr::kQElems;     // kQStages buffers
  T* s_ds = s_do + kQStages * Tr::kQElems;    // dS as (query, key)
  float* s_lse = reinterpret_cast<float*>(s_ds + Tr::kDsElems);  // kQStages buffers, lse*log2(e)
  float* s_d = s_lse + kQStages * kBlockM;                         // kQStages buffers

  const int tid = threadIdx.x;
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;

  const TileOfBlock assigned = backward_tile_of_block(static_cast<int>(blockIdx.x), p.key_tiles, p.head_group);
  const int bh = assigned.bh;
  const int key_tile = assigned.tile;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int n0 = key_tile * kBlockN;
  const int warp_key0 = warp * 16;

  const T* q = p.q.head<const T>(batch, head);
  const T* d_o = p.d_o.head<const T>(batch, head);
  const float* lse = p.lse + static_cast<int64_t>(bh) * p.seq_q;
  const float* d_rowsum = p.d_rowsum + static_cast<int64_t>(bh) * p.seq_q;
  float* dq_accum = p.dq_accum + static_cast<int64_t>(bh) * p.seq_q * p.head_dim;

  // Queries before n0 cannot see any of these keys under causal masking. With query splits
  // (gridDim.y > 1, fp32 only) this CTA walks its share of the rest and adds its dK, dV into
  // the zeroed outputs.
  const int m_first = p.causal ? (n0 / kBlockM) * kBlockM : 0;
  const int query_tiles = m_first < p.seq_q ? (p.seq_q - m_first + kBlockM - 1) / kBlockM : 0;
  const int splits = static_cast<int>(gridDim.y);
  const int split = static_cast<int>(blockIdx.y);
  const int m_begin = m_first + query_tiles * split / splits * kBlockM;
  const int m_end = min(p.seq_q, m_first + query_tiles * (split + 1) / splits * kBlockM);
  if (splits > 1 && m_begin >= m_end) return;  // nothing to add

  load_tile_async<T, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_k, p.k.head<const T>(batch, head), p.k.row_stride, n0, p.seq_k, p.head_dim,
      p.vector_loads, tid);
  load_tile_async<T, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_v, p.v.head<const T>(batch, head), p.v.row_stride, n0, p.seq_k, p.head_dim,
      p.vector_loads, tid);

  // Loads query tile m0 (Q, dO, lse, D) into buffer `buf`. Rows past seq_q get lse = +inf so
  // that P = exp2(s - inf) = 0 there, and D = 0.
  auto load_query_tile = [&](int m0, int buf) {
    load_tile_async<T, kBlockM, kHeadDim, kStride, Tr::kThreads>(
        s_q + buf * Tr::kQElems, q, p.q.row_stride, m0, p.seq_q, p.head_dim, p.vector_loads, tid);
    load_tile_async<T, kBlockM, kHeadDim, kStride, Tr::kThreads>(
        s_do + buf * Tr::kQElems, d_o, p.d_o.row_stride, m0, p.seq_q, p.head_dim,
        p.vector_loads, tid);
    for (int r = tid; r < kBlockM; r += Tr::kThreads) {
      const int row = m0 + r;
      s_lse[buf * kBlockM + r] = row < p.seq_q ? lse[row] * static_cast<float>(M_LOG2E) : INFINITY;
      s_d[buf * kBlockM + r] = row < p.seq_q ? d_rowsum[row] : 0.f;
    }
  };
  if (m_begin < m_end) load_query_tile(m_begin, 0);
  cp_async_commit();

  float dk_acc[kDimTiles][4];
  float dv_acc[kDimTiles][4];
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk_acc[n][e] = dv_acc[n][e] = 0.f;

  const T* k_rows = s_k + warp_key0 * kStride;
  const T* v_rows = s_v + warp_key0 * kStride;

  int buf = 0;
  for (int m0 = m_begin; m0 < m_end; m0 += kBlockM, buf = kQStages == 1 ? 0 : buf ^ 1) {
    cp_async_wait_all();
    __syncthreads();  // tile m0 is visible; every warp is done with the other buffer and dS
    if (kQStages == 2 && m0 + kBlockM < m_end) {
      load_query_tile(m0 + kBlockM, buf ^ 1);
      cp_async_commit();
    }
    const T* q_tile = s_q + buf * Tr::kQElems;
    const T* do_tile = s_do + buf * Tr::kQElems;
    const float* lse_tile = s_lse + buf * kBlockM;
    const float* d_tile = s_d + buf * kBlockM;

    // P^T = exp(scale * K Q^T - lse): rows = this warp's keys, columns = the tile's queries.
    float p_t[kQueryTiles][4];
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) p_t[n][e] = 0.f;
    Ops::template a_bt<kHeadDim, kQueryTiles, kStride, kStride, Tr::kScoreUnrollK>(p_t, k_rows, q_tile, lane);
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

    Ops::template regs_b<kQueryTiles, kDimTiles, kStride>(dv_acc, p_t, do_tile, lane);

    // dS^T = P^T * (V dO^T - D), kept in dp_t and stored as (query, key) for dQ.
    float dp_t[kQueryTiles][4];
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) dp_t[n][e] = 0.f;
    Ops::template a_bt<kHeadDim, kQueryTiles, kStride, kStride, Tr::kScoreUnrollK>(dp_t, v_rows, do_tile, lane);
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int query = n * 8 + 2 * t + (e & 1);
        dp_t[n][e] = p_t[n][e] * (dp_t[n][e] - d_tile[query]);
        s_ds[query * Tr::kDsStride + warp_key0 + g + (e >> 1) * 8] = element_from_float<T>(dp_t[n][e]);
      }

    Ops::template regs_b<kQueryTiles, kDimTiles, kStride>(dk_acc, dp_t, q_tile, lane);
    __syncthreads();  // all of dS is in shared memory, and every warp is done with this tile
    if (kQStages == 1 && m0 + kBlockM < m_end) {
      load_query_tile(m0 + kBlockM, 0);  // lands while dQ reads dS and K
      cp_async_commit();
    }

    // dQ (unscaled) += dS K, split over warps by row group (16 queries) and column range, in
    // chunks of columns, which keeps dQ's registers apart from dK/dV's under 255.
    const int dq_row_group = warp % Tr::kDqRowGroups;
    const int dq_col0 = (warp / Tr::kDqRowGroups) * Tr::kDqColsPerWarp;
#pragma unroll
    for (int c0 = dq_col0; c0 < dq_col0 + Tr::kDqColsPerWarp; c0 += Tr::kDqChunk) {
      float dq[Tr::kDqChunk / 8][4];
#pragma unroll
      for (int n = 0; n < Tr::kDqChunk / 8; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) dq[n][e] = 0.f;
      Ops::template a_b<kBlockN, Tr::kDqChunk / 8, Tr::kDsStride, kStride>(
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

  if constexpr (std::is_same_v<T, float>) {
    if (splits > 1) {
      float* dk = p.dk.head<float>(batch, head);
      float* dv = p.dv.head<float>(batch, head);
#pragma unroll
      for (int n = 0; n < kDimTiles; ++n)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int key = n0 + warp_key0 + g + r * 8;
          const int col = n * 8 + 2 * t;  // head_dim is a multiple of 8: both or neither
          if (key >= p.seq_k || col >= p.head_dim) continue;
          atomicAdd(dk + static_cast<int64_t>(key) * p.dk.row_stride + col, dk_acc[n][2 * r] * p.scale);
          atomicAdd(dk + static_cast<int64_t>(key) * p.dk.row_stride + col + 1, dk_acc[n][2 * r + 1] * p.scale);
          atomicAdd(dv + static_cast<int64_t>(key) * p.dv.row_stride + col, dv_acc[n][2 * r]);
          atomicAdd(dv + static_cast<int64_t>(key) * p.dv.row_stride + col + 1, dv_acc[n][2 * r + 1]);
        }
      return;
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
      Ops::store_pair(s_k + offset, dk_acc[n][2 * r] * p.scale, dk_acc[n][2 * r + 1] * p.scale);
      Ops::store_pair(s_v + offset, dv_acc[n][2 * r], dv_acc[n][2 * r + 1]);
    }
  __syncwarp();
  store_warp_rows<T, kHeadDim, kStride>(p.dk.head<T>(batch, head), p.dk.row_stride, s_k,
                                        warp_key0, n0, p.seq_k, p.head_dim, p.vector_loads, lane);
  store_warp_rows<T, kHeadDim, kStride>(p.dv.head<T>(batch, head), p.dv.row_stride, s_v,
                                        warp_key0, n0, p.seq_k, p.head_dim, p.vector_loads, lane);
}

}  // namespace stepscope::kernels::flash
