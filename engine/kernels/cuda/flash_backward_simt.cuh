// FlashAttention-2 backward for fp32 inputs in plain fp32 FFMA. One CTA per (32-key tile,
// batch*head); lane = key for the recomputed P and dP and for dK, dV (kept in registers);
// P and dS pass through shared memory to form dK, dV and the dQ contributions (fp32 atomics).
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_forward_simt.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cmath>

namespace stepscope::kernels::flash {

template <int kHeadDim>
__global__ void __launch_bounds__(SimtBackwardTraits<kHeadDim>::kThreads)
    flash_backward_simt_kernel(const BackwardParams p) {
  using Tr = SimtBackwardTraits<kHeadDim>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kKStride = Tr::kKStride;
  constexpr int kPStride = Tr::kPStride;

  extern __shared__ __align__(16) unsigned char smem_bytes[];
  float* s_k = reinterpret_cast<float*>(smem_bytes);  // kBlockN x kKStride
  float* s_v = s_k + kBlockN * kKStride;               // kBlockN x kKStride
  float* s_q = s_v + kBlockN * kKStride;               // kBlockM x kHeadDim
  float* s_do = s_q + kBlockM * kHeadDim;              // kBlockM x kHeadDim
  float* s_p = s_do + kBlockM * kHeadDim;              // (query, key)
  float* s_ds = s_p + kBlockM * kPStride;              // (query, key)
  float* s_lse = s_ds + kBlockM * kPStride;
  float* s_d = s_lse + kBlockM;

  const int tid = threadIdx.x;
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const TileOfBlock assigned = backward_tile_of_block(static_cast<int>(blockIdx.x), p.key_tiles, p.head_group);
  const int bh = assigned.bh;
  const int key_tile = assigned.tile;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int n0 = key_tile * kBlockN;
  const int key = n0 + lane;

  const float* q = p.q.head<const float>(batch, head);
  const float* d_o = p.d_o.head<const float>(batch, head);
  const float* lse = p.lse + static_cast<int64_t>(bh) * p.seq_q;
  const float* d_rowsum = p.d_rowsum + static_cast<int64_t>(bh) * p.seq_q;
  float* dq_accum = p.dq_accum + static_cast<int64_t>(bh) * p.seq_q * p.head_dim;

  load_tile_f32<kBlockN, kHeadDim, kKStride, Tr::kThreads>(
      s_k, p.k.head<const float>(batch, head), p.k.row_stride, n0, p.seq_k, p.head_dim, tid);
  load_tile_f32<kBlockN, kHeadDim, kKStride, Tr::kThreads>(
      s_v, p.v.head<const float>(batch, head), p.v.row_stride, n0, p.seq_k, p.head_dim, tid);

  // This thread's dK/dV: key `lane`, columns warp, warp+4, ... (a warp reads one column of
  // Q/dO at a time, a broadcast).
  float dk_acc[Tr::kColsPerThread], dv_acc[Tr::kColsPerThread];
#pragma unroll
  for (int c = 0; c < Tr::kColsPerThread; ++c) dk_acc[c] = dv_acc[c] = 0.f;

  const int m_begin = p.causal ? (n0 / kBlockM) * kBlockM : 0;
  for (int m0 = m_begin; m0 < p.seq_q; m0 += kBlockM) {
    __syncthreads();  // the previous query tile, P and dS are no longer read
    load_tile_f32<kBlockM, kHeadDim, kHeadDim, Tr::kThreads>(s_q, q, p.q.row_stride, m0, p.seq_q,
                                                             p.head_dim, tid);
    load_tile_f32<kBlockM, kHeadDim, kHeadDim, Tr::kThreads>(s_do, d_o, p.d_o.row_stride, m0,
                                                             p.seq_q, p.head_dim, tid);
    for (int r = tid; r < kBlockM; r += Tr::kThreads) {
      const bool valid = m0 + r < p.seq_q;
      s_lse[r] = valid ? lse[m0 + r] : 0.f;
      s_d[r] = valid ? d_rowsum[m0 + r] : 0.f;
    }
    __syncthreads();

    // P and dS for rows warp*8 .. warp*8+7 and key `lane`.
    float s[Tr::kRowsPerWarp], dp[Tr::kRowsPerWarp];
#pragma unroll
    for (int r = 0; r < Tr::kRowsPerWarp; ++r) s[r] = dp[r] = 0.f;
    const int row0 = warp * Tr::kRowsPerWarp;
    for (int c = 0; c < kHeadDim; ++c) {
      const float kc = s_k[lane * kKStride + c];
      const float vc = s_v[lane * kKStride + c];
#pragma unroll
      for (int r = 0; r < Tr::kRowsPerWarp; ++r) {
        s[r] = fmaf(s_q[(row0 + r) * kHeadDim + c], kc, s[r]);
        dp[r] = fmaf(s_do[(row0 + r) * kHeadDim + c], vc, dp[r]);
      }
    }
#pragma unroll
    for (int r = 0; r < Tr::kRowsPerWarp; ++r) {
      const int row = row0 + r;
      const int query = m0 + row;
      const bool visible = query < p.seq_q && key < p.seq_k && !(p.causal && key > query);
      const float prob = visible ? expf(s[r] * p.scale - s_lse[row]) : 0.f;
      s_p[row * kPStride + lane] = prob;
      s_ds[row * kPStride + lane] = prob * (dp[r] - s_d[row]);
    }
    __syncthreads();

    // dV += P^T dO, dK += dS^T Q for key `lane`.
    for (int row = 0; row < kBlockM; ++row) {
      const float prob = s_p[row * kPStride + lane];
      const float ds = s_ds[row * kPStride + lane];
#pragma unroll
      for (int c = 0; c < Tr::kColsPerThread; ++c) {
        const int col = warp + c * Tr::kWarps;
        dv_acc[c] = fmaf(prob, s_do[row * kHeadDim + col], dv_acc[c]);
        dk_acc[c] = fmaf(ds, s_q[row * kHeadDim + col], dk_acc[c]);
      }
    }

    // dQ (unscaled) += dS K for rows warp, warp+4, ... and columns lane, lane+32, ...
#pragma unroll 1
    for (int r = 0; r < Tr::kRowsPerWarp; ++r) {
      const int row = warp + r * Tr::kWarps;
      const int query = m0 + row;
      if (query >= p.seq_q) continue;
      float dq[Tr::kColsPerLane];
#pragma unroll
      for (int c = 0; c < Tr::kColsPerLane; ++c) dq[c] = 0.f;
      for (int j = 0; j < kBlockN; ++j) {
        const float ds = s_ds[row * kPStride + j];
#pragma unroll
        for (int c = 0; c < Tr::kColsPerLane; ++c)
          dq[c] = fmaf(ds, s_k[j * kKStride + lane + c * kWarpSize], dq[c]);
      }
#pragma unroll
      for (int c = 0; c < Tr::kColsPerLane; ++c) {
        const int col = lane + c * kWarpSize;
        if (col < p.head_dim) atomicAdd(dq_accum + static_cast<int64_t>(query) * p.head_dim + col, dq[c]);
      }
    }
  }

  if (key >= p.seq_k) return;
  float* dk = p.dk.head<float>(batch, head) + static_cast<int64_t>(key) * p.dk.row_stride;
  float* dv = p.dv.head<float>(batch, head) + static_cast<int64_t>(key) * p.dv.row_stride;
#pragma unroll
  for (int c = 0; c < Tr::kColsPerThread; ++c) {
    const int col = warp + c * Tr::kWarps;
    if (col < p.head_dim) {
      dk[col] = dk_acc[c] * p.scale;
      dv[col] = dv_acc[c];
    }
  }
}

}  // namespace stepscope::kernels::flash
