// FlashAttention-2 forward on tensor cores, Algorithm 1 of Dao (2023): one CTA per (query tile,
// batch*head); each warp keeps 16 query rows' O, row max and row sum in registers while K/V
// tiles stream through shared memory. fp16/bf16 inputs accumulate in fp32; fp32 inputs run
// 3xTF32 (flash_mma_ops.cuh).
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_mma_ops.cuh"
#include "kernels/cuda/flash_tile_io.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cmath>

namespace stepscope::kernels::flash {

// A row's logsumexp (natural log) from its running max (log2 units of scale * score) and sum;
// -inf for a row that saw no key.
__device__ __forceinline__ float row_lse(float max_log2, float sum) {
  return sum > 0.f ? max_log2 * static_cast<float>(M_LN2) + logf(sum) : -INFINITY;
}

template <typename T, int kHeadDim, bool kSplitKv = false>
__global__ void __launch_bounds__(TensorCoreForwardTraits<T, kHeadDim, kSplitKv>::kThreads,
                                  TensorCoreForwardTraits<T, kHeadDim, kSplitKv>::kMinBlocksPerSm)
    flash_forward_mma_kernel(const ForwardParams p) {
  using Tr = TensorCoreForwardTraits<T, kHeadDim, kSplitKv>;
  using Ops = MmaOps<T>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStride = Tr::kSmemStride;
  constexpr int kScoreTiles = kBlockN / 8;  // n8 tiles of S per warp
  constexpr int kOutTiles = kHeadDim / 8;   // n8 tiles of O per warp

  // Two K/V stages, or with kSplitKv one raw stage and the split parts after it.
  constexpr int kKvStages = Tr::kSplitKv ? 1 : 2;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  T* s_q = reinterpret_cast<T*>(smem_bytes);
  T* s_k = s_q + Tr::kQElems;
  T* s_v = s_k + kKvStages * Tr::kKvElems;

  const int tid = threadIdx.x;
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;

  const TileOfBlock assigned = forward_tile_of_block(static_cast<int>(blockIdx.x), p.row_tiles, p.causal, p.head_group);
  const int bh = assigned.bh;
  const int tile = assigned.tile;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int m0 = tile * kBlockM;

  const T* q = p.q.head<const T>(batch, head);
  const T* k = p.k.head<const T>(batch, head);
  const T* v = p.v.head<const T>(batch, head);

  const int key_end = p.causal ? min(p.seq_k, m0 + kBlockM) : p.seq_k;
  // This CTA's share of the walk: all of it, or with key splits chunk blockIdx.y, which a short
  // causal walk may not reach.
  const bool split_walk = gridDim.y > 1;
  const int walk_tiles = (key_end + kBlockN - 1) / kBlockN;
  const int tile_begin = split_walk ? static_cast<int>(blockIdx.y) * p.split_tiles : 0;
  const int tile_end = split_walk ? min(walk_tiles, tile_begin + p.split_tiles) : walk_tiles;
  if (tile_begin >= tile_end) return;

  load_tile_async<T, kBlockM, kHeadDim, kStride, Tr::kThreads>(
      s_q, q, p.q.row_stride, m0, p.seq_q, p.head_dim, p.vector_loads, tid);

  float o_acc[kOutTiles][4];
#pragma unroll
  for (int n = 0; n < kOutTiles; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) o_acc[n][e] = 0.f;
  // Row statistics (max in log2 units of scale * score) for rows g and g+8 of this warp's 16;
  // the running sum stays per thread (each thread's share of its row) until the end.
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.f, 0.f};

  const int warp_row0 = warp * 16;
  const T* q_rows = s_q + warp_row0 * kStride;

  const auto load_kv = [&](int tile_index, int stage) {
    load_tile_async<T, kBlockN, kHeadDim, kStride, Tr::kThreads>(
        s_k + stage * Tr::kKvElems, k, p.k.row_stride, tile_index * kBlockN, p.seq_k, p.head_dim,
        p.vector_loads, tid);
    load_tile_async<T, kBlockN, kHeadDim, kStride, Tr::kThreads>(
        s_v + stage * Tr::kKvElems, v, p.v.row_stride, tile_index * kBlockN, p.seq_k, p.head_dim,
        p.vector_loads, tid);
    cp_async_commit();
  };
  load_kv(tile_begin, 0);  // Q's copy joins this group

  for (int j = tile_begin; j < tile_end; ++j) {
    cp_async_wait_all();
    __syncthreads();  // tile j is visible, and every warp is done with tile j-1's buffers
    [[maybe_unused]] const int stage = kKvStages == 1 ? 0 : (j - tile_begin) & 1;
    // With kSplitKv, after the raw stage: K big, K small, V^T big, V^T small.
    [[maybe_unused]] T* const split = s_v + kKvStages * Tr::kKvElems;
    if constexpr (Tr::kSplitKv) {
      Ops::template split_kv<kBlockN, kHeadDim, kStride, Tr::kVtStride, Tr::kThreads>(
          s_k, s_v, split, split + Tr::kKvElems, split + 2 * Tr::kKvElems,
          split + 2 * Tr::kKvElems + Tr::kVtElems, tid);
      __syncthreads();  // the parts are visible and the raw stage is free for the next copy
    }
    if (j + 1 < tile_end) load_kv(j + 1, kKvStages == 1 ? 0 : (j + 1 - tile_begin) & 1);
    const int n0 = j * kBlockN;

    // S = Q K^T for this warp's 16 rows x kBlockN keys.
    float s[kScoreTiles][4];
#pragma unroll
    for (int n = 0; n < kScoreTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[n][e] = 0.f;
    if constexpr (Tr::kSplitKv) {
      Ops::template a_bt_split<kHeadDim, kScoreTiles, kStride, kStride, Tr::kScoreUnrollK>(
          s, q_rows, split, split + Tr::kKvElems, lane);
    } else {
      Ops::template a_bt<kHeadDim, kScoreTiles, kStride, kStride, Tr::kScoreUnrollK>(
          s, q_rows, s_k + stage * Tr::kKvElems, lane);
    }

    // Scale into log2 units first, then mask: keys past seq_k and (causal) keys after the
    // query get -inf, so exp2 gives exactly 0 whatever the sign of the scale.
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

    // Online softmax: rescale what O and the row sum hold by 2^(old max - new max).
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int n = 0; n < kScoreTiles; ++n)
        tile_max = fmaxf(tile_max, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
      const float new_max = fmaxf(row_max[r], quad_max(tile_max));
      // A row with no visible key yet keeps max -inf; 2^(-inf - 0) = 0 keeps it NaN-free.
      const float base = new_max == -INFINITY ? 0.f : new_max;
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

    // O += P V, P straight from the score registers.
    if constexpr (Tr::kSplitKv) {
      Ops::template regs_b_split<kScoreTiles, kOutTiles, Tr::kVtStride>(
          o_acc, s, split + 2 * Tr::kKvElems, split + 2 * Tr::kKvElems + Tr::kVtElems, lane);
    } else {
      Ops::template regs_b<kScoreTiles, kOutTiles, kStride>(o_acc, s, s_v + stage * Tr::kKvElems, lane);
    }
  }

  if (split_walk) {
    // This chunk's normalised O and lse, fp32, for the combine kernel (flash_forward_combine.cuh).
    const int bh_count = static_cast<int>(gridDim.x) / p.row_tiles;
    const int64_t first_row = (static_cast<int64_t>(blockIdx.y) * bh_count + bh) * p.seq_q + m0 + warp_row0;
    const int row_floats = (p.head_dim + 3) / 4 * 4;  // partial_row_floats
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float sum = quad_sum(row_sum[r]);
      const float inv = sum > 0.f ? 1.f / sum : 0.f;
      const int local = g + r * 8;
      if (m0 + warp_row0 + local >= p.seq_q) continue;
      float* out = p.partial_o + (first_row + local) * row_floats;
#pragma unroll
      for (int n = 0; n < kOutTiles; ++n) {
        const int c = n * 8 + 2 * t;
        if (c < row_floats) {
          *reinterpret_cast<float2*>(out + c) = make_float2(o_acc[n][2 * r] * inv, o_acc[n][2 * r + 1] * inv);
        }
      }
      if (t == 0) {
        p.partial_lse[first_row + local] = row_lse(row_max[r], sum);
      }
    }
    return;
  }

  // Normalise, write lse, and stage O through this warp's own Q rows (only this warp reads
  // them) for 16-byte stores, once every lane's last ldmatrix of them is done.
  __syncwarp();
  T* o_stage = s_q + warp_row0 * kStride;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    const int local = g + r * 8;
#pragma unroll
    for (int n = 0; n < kOutTiles; ++n) {
      Ops::store_pair(o_stage + local * kStride + n * 8 + 2 * t, o_acc[n][2 * r] * inv,
                      o_acc[n][2 * r + 1] * inv);
    }
    const int row = m0 + warp_row0 + local;
    if (t == 0 && row < p.seq_q) {
      p.lse[static_cast<int64_t>(bh) * p.seq_q + row] = row_lse(row_max[r], sum);
    }
  }
  __syncwarp();
  store_warp_rows<T, kHeadDim, kStride>(p.o.head<T>(batch, head), p.o.row_stride, s_q, warp_row0,
                                        m0, p.seq_q, p.head_dim, p.vector_loads, lane);
}

}  // namespace stepscope::kernels::flash
