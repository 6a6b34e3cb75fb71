// FlashAttention-2 backward on tensor cores (fp16/bf16 inputs, fp32 accumulation). One CTA per
// (key tile, batch*head); each warp owns 16 keys and keeps their dK, dV in registers while the
// query tiles stream through shared memory. Working with transposed scores (keys as rows)
// puts P^T and dS^T in accumulator layout, which is directly the A operand of dV += P^T dO
// and dK += dS^T Q. dQ += dS K goes through shared memory and fp32 atomics.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_tile_io.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cmath>

namespace stepscope::kernels::flash {

// acc (16 rows x kTiles*8 columns) += A(16 x 16*kSteps, from `a_rows`, row-major) times
// B^T, where B is (kTiles*8 rows x 16*kSteps) row-major in shared memory: C = A B^T.
template <typename T, int kSteps, int kTiles, int kStrideA, int kStrideB>
__device__ __forceinline__ void mma_a_bt(float (&acc)[kTiles][4], const T* a_rows, const T* b_rows,
                                         int lane) {
#pragma unroll
  for (int kk = 0; kk < kSteps; ++kk) {
    uint32_t a[4];
    ldmatrix_x4(a, a_rows + a_operand_row(lane) * kStrideA + kk * 16 + a_operand_col(lane));
#pragma unroll
    for (int np = 0; np < kTiles / 2; ++np) {
      uint32_t b[4];
      ldmatrix_x4(b, b_rows + (np * 16 + bt_operand_row(lane)) * kStrideB + kk * 16 +
                         bt_operand_col(lane));
      MmaElement<T>::mma(acc[2 * np], a, b[0], b[1]);
      MmaElement<T>::mma(acc[2 * np + 1], a, b[2], b[3]);
    }
  }
}

// acc (16 x kTiles*8) += X (16 x 16*kSteps, accumulator layout in registers, rounded to T)
// times B (16*kSteps rows x kTiles*8 columns, row-major in shared memory).
template <typename T, int kSteps, int kTiles, int kStrideB>
__device__ __forceinline__ void mma_regs_b(float (&acc)[kTiles][4], const float (&x)[2 * kSteps][4],
                                           const T* b_rows, int lane) {
  using E = MmaElement<T>;
#pragma unroll
  for (int ks = 0; ks < kSteps; ++ks) {
    const uint32_t a[4] = {E::pack(x[2 * ks][0], x[2 * ks][1]), E::pack(x[2 * ks][2], x[2 * ks][3]),
                           E::pack(x[2 * ks + 1][0], x[2 * ks + 1][1]),
                           E::pack(x[2 * ks + 1][2], x[2 * ks + 1][3])};
#pragma unroll
    for (int dp = 0; dp < kTiles / 2; ++dp) {
      uint32_t b[4];
      ldmatrix_x4_trans(b, b_rows + (ks * 16 + a_operand_row(lane)) * kStrideB + dp * 16 +
                               a_operand_col(lane));
      E::mma(acc[2 * dp], a, b[0], b[1]);
      E::mma(acc[2 * dp + 1], a, b[2], b[3]);
    }
  }
}

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(MmaBackwardTraits<kHeadDim>::kThreads)
    flash_backward_mma_kernel(const BackwardParams p) {
  using Tr = MmaBackwardTraits<kHeadDim>;
  using E = MmaElement<T>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStride = Tr::kSmemStride;
  constexpr int kQueryTiles = kBlockM / 8;  // n8 tiles of S^T per warp
  constexpr int kDimTiles = kHeadDim / 8;

  extern __shared__ __align__(16) unsigned char smem_bytes[];
  T* s_k = reinterpret_cast<T*>(smem_bytes);
  T* s_v = s_k + Tr::kKvElems;
  T* s_q = s_v + Tr::kKvElems;        // two buffers
  T* s_do = s_q + 2 * Tr::kQElems;    // two buffers
  T* s_ds = s_do + 2 * Tr::kQElems;   // dS as (query, key)
  float* s_lse = reinterpret_cast<float*>(s_ds + Tr::kDsElems);  // two buffers, lse*log2(e)
  float* s_d = s_lse + 2 * kBlockM;                                // two buffers

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

  load_tile_async<T, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_k, p.k.head<const T>(batch, head), p.k.row_stride, n0, p.seq_k, p.head_dim,
      p.vector_loads, tid);
  load_tile_async<T, kBlockN, kHeadDim, kStride, Tr::kThreads>(
      s_v, p.v.head<const T>(batch, head), p.v.row_stride, n0, p.seq_k, p.head_dim,
      p.vector_loads, tid);

  // Queries before n0 cannot see any of these keys under causal masking.
  const int m_begin = p.causal ? (n0 / kBlockM) * kBlockM : 0;
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
  if (m_begin < p.seq_q) load_query_tile(m_begin, 0);
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
  for (int m0 = m_begin; m0 < p.seq_q; m0 += kBlockM, buf ^= 1) {
    cp_async_wait_all();
    __syncthreads();  // tile m0 is visible; every warp is done with the other buffer and dS
    if (m0 + kBlockM < p.seq_q) {
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
    mma_a_bt<T, kHeadDim / 16, kQueryTiles, kStride, kStride>(p_t, k_rows, q_tile, lane);
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

    mma_regs_b<T, kBlockM / 16, kDimTiles, kStride>(dv_acc, p_t, do_tile, lane);

    // dS^T = P^T * (V dO^T - D); kept in dp_t.
    float dp_t[kQueryTiles][4];
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) dp_t[n][e] = 0.f;
    mma_a_bt<T, kHeadDim / 16, kQueryTiles, kStride, kStride>(dp_t, v_rows, do_tile, lane);
#pragma unroll
    for (int n = 0; n < kQueryTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int query = n * 8 + 2 * t + (e & 1);
        dp_t[n][e] = p_t[n][e] * (dp_t[n][e] - d_tile[query]);
        s_ds[query * Tr::kDsStride + warp_key0 + g + (e >> 1) * 8] = E::from_float(dp_t[n][e]);
      }

    mma_regs_b<T, kBlockM / 16, kDimTiles, kStride>(dk_acc, dp_t, q_tile, lane);
    __syncthreads();  // all of dS is in shared memory

    // dQ (unscaled) += dS K, split over warps by row group and column range.
    const int row_group = warp % Tr::kDqRowGroups;
    const int col_begin = (warp / Tr::kDqRowGroups) * Tr::kDqColsPerWarp;
#pragma unroll
    for (int c0 = col_begin; c0 < col_begin + Tr::kDqColsPerWarp; c0 += Tr::kDqChunk) {
      float dq[Tr::kDqChunk / 8][4];
#pragma unroll
      for (int n = 0; n < Tr::kDqChunk / 8; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) dq[n][e] = 0.f;
#pragma unroll
      for (int ks = 0; ks < kBlockN / 16; ++ks) {
        uint32_t a[4];
        ldmatrix_x4(a, s_ds + (row_group * 16 + a_operand_row(lane)) * Tr::kDsStride + ks * 16 +
                           a_operand_col(lane));
#pragma unroll
        for (int dp = 0; dp < Tr::kDqChunk / 16; ++dp) {
          uint32_t b[4];
          ldmatrix_x4_trans(b, s_k + (ks * 16 + a_operand_row(lane)) * kStride + c0 + dp * 16 +
                                   a_operand_col(lane));
          E::mma(dq[2 * dp], a, b[0], b[1]);
          E::mma(dq[2 * dp + 1], a, b[2], b[3]);
        }
      }
#pragma unroll
      for (int n = 0; n < Tr::kDqChunk / 8; ++n)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int row = m0 + row_group * 16 + g + r * 8;
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
      *reinterpret_cast<uint32_t*>(s_k + offset) =
          E::pack(dk_acc[n][2 * r] * p.scale, dk_acc[n][2 * r + 1] * p.scale);
      *reinterpret_cast<uint32_t*>(s_v + offset) = E::pack(dv_acc[n][2 * r], dv_acc[n][2 * r + 1]);
    }
  __syncwarp();
  store_warp_rows<T, kHeadDim, kStride>(p.dk.head<T>(batch, head), p.dk.row_stride, s_k,
                                        warp_key0, n0, p.seq_k, p.head_dim, p.vector_loads, lane);
  store_warp_rows<T, kHeadDim, kStride>(p.dv.head<T>(batch, head), p.dv.row_stride, s_v,
                                        warp_key0, n0, p.seq_k, p.head_dim, p.vector_loads, lane);
}

}  // namespace stepscope::kernels::flash
