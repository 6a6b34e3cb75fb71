// FlashAttention forward for Hopper (sm_90a), after FlashAttention-3 (Shah et al., 2024): TMA
// loads into an mbarrier pipeline, warp specialisation and wgmma.
//
// One CTA per (kBlockM = 128 query rows, batch*head). Warpgroup 0 is the producer: one thread
// loads the Q tile once and streams K/V tiles through kStages shared-memory stages, waiting on
// each stage's "empty" barrier before refilling it. Warpgroups 1 and 2 each own 64 query rows:
//   S = Q K^T        wgmma, both operands in shared memory (K-major), fp32 accumulators
//   online softmax   in registers (exp2 with the scale folded into one FFMA)
//   O += P V         wgmma with P converted in registers straight from S's accumulators (the
//                    accumulator and A-operand layouts coincide), V from shared memory read
//                    MN-major through the descriptor's transpose bit (no transposition)
// Within a warpgroup the S GEMM of tile j is issued before the P V GEMM of tile j-1, so the
// softmax of tile j runs while the tensor cores do P V (FA3's intra-warpgroup pipelining).
// O goes out through the warpgroup's own (no longer needed) Q rows in shared memory and a TMA
// store, which skips rows past seq_q and columns past head_dim; lse is stored per row.
//
// Masking: TMA zero-fills rows past seq_q / seq_k and columns past head_dim; key columns past
// seq_k and (causal, top-left) keys after the query get -inf; causal CTAs stop at their
// diagonal tile. The host only picks this kernel for 16-bit types, a positive softmax scale and
// views TMA can address (sm90_tensor_map.h).
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_sm90_traits.h"
#include "kernels/cuda/sm90_async_copy.cuh"
#include "kernels/cuda/sm90_wgmma.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cuda.h>

#include <cmath>
#include <cstdint>

namespace stepscope::kernels::flash {

struct Sm90ForwardParams {
  CUtensorMap q_map;  // boxes of (64 columns, kBlockM rows)
  CUtensorMap k_map;  // (64, kBlockN)
  CUtensorMap v_map;  // (64, kBlockN)
  CUtensorMap o_map;  // (64, 64): one warpgroup's rows
  float* lse = nullptr;  // (batch * heads, seq_q)
  int heads = 1;
  int seq_q = 1;
  int seq_k = 1;
  int row_tiles = 1;
  int head_group = 1;  // heads per group of the grid order (flash_grid_order.h)
  bool causal = false;
  float scale = 1.f;       // > 0
  float scale_log2 = 1.f;  // scale * log2(e)
};

namespace sm90_forward {

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Online softmax of one S tile (raw scores, kBlockN / 2 accumulators per thread, rows row0 and
// row0 + 8): masks, updates the running max (raw units) and sum, turns s into probabilities
// relative to the new max, and returns the factors O must be rescaled by.
template <int kBlockN>
__device__ __forceinline__ void softmax_tile(float (&s)[kBlockN / 2], float (&row_max)[2],
                                             float (&row_sum)[2], float (&rescale)[2], int n0,
                                             int row0, bool mask, const Sm90ForwardParams& p) {
  const int t = threadIdx.x % 4;
  if (mask) {
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = n0 + 8 * j + 2 * t + (e & 1);
        const int row = row0 + 8 * (e >> 1);
        if (key >= p.seq_k || (p.causal && key > row)) s[4 * j + e] = -INFINITY;
      }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
      tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * r], s[4 * j + 2 * r + 1]));
    const float new_max = fmaxf(row_max[r], quad_max(tile_max));
    // A row with no visible key yet keeps max -inf; subtracting 0 keeps it NaN-free.
    const float base = new_max == -INFINITY ? 0.f : new_max * p.scale_log2;
    rescale[r] = fast_exp2(row_max[r] * p.scale_log2 - base);
    row_max[r] = new_max;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
      for (int e = 2 * r; e < 2 * r + 2; ++e) {
        s[4 * j + e] = fast_exp2(fmaf(s[4 * j + e], p.scale_log2, -base));
        sum += s[4 * j + e];
      }
    row_sum[r] = row_sum[r] * rescale[r] + sum;
  }
}

// P (fp32 accumulators of S) as the A fragments of the P V GEMM's k-steps of 16 keys.
template <typename T, int kBlockN>
__device__ __forceinline__ void convert_p(const float (&s)[kBlockN / 2],
                                          uint32_t (&pa)[kBlockN / 16][4]) {
#pragma unroll
  for (int ks = 0; ks < kBlockN / 16; ++ks) {
    pa[ks][0] = MmaElement<T>::pack(s[8 * ks + 0], s[8 * ks + 1]);
    pa[ks][1] = MmaElement<T>::pack(s[8 * ks + 2], s[8 * ks + 3]);
    pa[ks][2] = MmaElement<T>::pack(s[8 * ks + 4], s[8 * ks + 5]);
    pa[ks][3] = MmaElement<T>::pack(s[8 * ks + 6], s[8 * ks + 7]);
  }
}

template <int kHeadDim>
__device__ __forceinline__ void rescale_o(float (&o)[kHeadDim / 2], const float (&rescale)[2]) {
#pragma unroll
  for (int j = 0; j < kHeadDim / 8; ++j) {
    o[4 * j + 0] *= rescale[0];
    o[4 * j + 1] *= rescale[0];
    o[4 * j + 2] *= rescale[1];
    o[4 * j + 3] *= rescale[1];
  }
}

}  // namespace sm90_forward

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(Sm90ForwardTraits<kHeadDim>::kThreads, 1)
    flash_forward_sm90_kernel(const __grid_constant__ Sm90ForwardParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  using namespace sm90_forward;
  using Tr = Sm90ForwardTraits<kHeadDim>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStages = Tr::kStages;

  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~static_cast<uintptr_t>(1023));
  unsigned char* s_q = smem;
  unsigned char* s_k = s_q + Tr::kQBytes;                 // kStages tiles
  unsigned char* s_v = s_k + kStages * Tr::kKvTileBytes;  // kStages tiles
  uint64_t* q_full = reinterpret_cast<uint64_t*>(s_v + kStages * Tr::kKvTileBytes);
  uint64_t* k_full = q_full + 1;
  uint64_t* v_full = k_full + kStages;
  uint64_t* k_empty = v_full + kStages;
  uint64_t* v_empty = k_empty + kStages;

  const TileOfBlock assigned = forward_tile_of_block(static_cast<int>(blockIdx.x), p.row_tiles, p.causal, p.head_group);
  const int bh = assigned.bh;
  const int tile = assigned.tile;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int m0 = tile * kBlockM;
  const int key_end = p.causal ? min(p.seq_k, m0 + kBlockM) : p.seq_k;
  const int key_tiles = (key_end + kBlockN - 1) / kBlockN;

  if (threadIdx.x == 0) {
    mbarrier_init(q_full, 1);
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&k_full[s], 1);
      mbarrier_init(&v_full[s], 1);
      mbarrier_init(&k_empty[s], 4 * Tr::kConsumerWarpgroups);  // one arrival per warp
      mbarrier_init(&v_empty[s], 4 * Tr::kConsumerWarpgroups);
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (threadIdx.x < 128) {  // producer warpgroup
    setmaxnreg_dec<Tr::kProducerRegs>();
    if (threadIdx.x == 0) {
      mbarrier_arrive_expect_tx(q_full, Tr::kQBytes);
#pragma unroll
      for (int pn = 0; pn < Tr::kPanels; ++pn)
        tma_load_4d(s_q + pn * Tr::kQPanelBytes, &p.q_map, q_full, pn * 64, m0, head, batch);
      for (int j = 0; j < key_tiles; ++j) {
        const int stage = j % kStages;
        const uint32_t free_phase = ((j / kStages) & 1) ^ 1;
        unsigned char* k_dst = s_k + stage * Tr::kKvTileBytes;
        unsigned char* v_dst = s_v + stage * Tr::kKvTileBytes;
        mbarrier_wait(&k_empty[stage], free_phase);
        mbarrier_arrive_expect_tx(&k_full[stage], Tr::kKvTileBytes);
#pragma unroll
        for (int pn = 0; pn < Tr::kPanels; ++pn)
          tma_load_4d(k_dst + pn * Tr::kKvPanelBytes, &p.k_map, &k_full[stage], pn * 64,
                      j * kBlockN, head, batch);
        mbarrier_wait(&v_empty[stage], free_phase);
        mbarrier_arrive_expect_tx(&v_full[stage], Tr::kKvTileBytes);
#pragma unroll
        for (int pn = 0; pn < Tr::kPanels; ++pn)
          tma_load_4d(v_dst + pn * Tr::kKvPanelBytes, &p.v_map, &v_full[stage], pn * 64,
                      j * kBlockN, head, batch);
      }
    }
    return;
  }

  setmaxnreg_inc<Tr::kConsumerRegs>();
  const int wg = threadIdx.x / 128 - 1;
  const int wtid = threadIdx.x % 128;
  const int warp = wtid / 32;
  const int lane = wtid % 32;
  const int wg_row0 = m0 + 64 * wg;
  const int row0 = wg_row0 + 16 * warp + lane / 4;  // this thread's rows: row0, row0 + 8
  const uint32_t q_addr = smem_u32(s_q) + 64 * wg * Tr::kRowBytes;

  float o[kHeadDim / 2];
#pragma unroll
  for (int i = 0; i < kHeadDim / 2; ++i) o[i] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.f, 0.f};
  float rescale[2];
  float s[kBlockN / 2];
  uint32_t pa[kBlockN / 16][4];

  // S = Q K^T of the tile in `stage`, over head-dim steps of 16 (4 per 64-column panel).
  auto issue_qk = [&](int stage) {
    const uint32_t k_addr = smem_u32(s_k) + stage * Tr::kKvTileBytes;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kHeadDim / 16; ++kk) {
      const uint32_t offset = (kk % 4) * 32;
      const uint64_t a =
          make_smem_desc(q_addr + (kk / 4) * Tr::kQPanelBytes + offset, 16, 1024, kSwizzle128);
      const uint64_t b =
          make_smem_desc(k_addr + (kk / 4) * Tr::kKvPanelBytes + offset, 16, 1024, kSwizzle128);
      Wgmma<kBlockN>::template ss<T, 0, 0>(s, a, b, kk > 0);
    }
    wgmma_commit();
  };
  // O += P V over key steps of 16; V rows are the k dimension, its columns (64 per panel,
  // panels kKvPanelBytes apart) the n dimension, hence MN-major.
  auto issue_pv = [&](int stage) {
    const uint32_t v_addr = smem_u32(s_v) + stage * Tr::kKvTileBytes;
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kBlockN / 16; ++ks) {
      const uint64_t b = make_smem_desc(v_addr + ks * 16 * Tr::kRowBytes, Tr::kKvPanelBytes,
                                        1024, kSwizzle128);
      Wgmma<kHeadDim>::template rs<T, 1>(o, pa[ks], b, true);
    }
    wgmma_commit();
  };
  auto needs_mask = [&](int j) {
    const int n0 = j * kBlockN;
    return n0 + kBlockN > p.seq_k || (p.causal && n0 + kBlockN - 1 > wg_row0);
  };
  auto release = [&](uint64_t* empty) {
    if (lane == 0) mbarrier_arrive(empty);
  };
  // Ping-pong turns: named barrier 3 + w is warpgroup w's turn to issue GEMMs; it completes
  // when w's 128 threads sync on it and the other warpgroup's 128 arrive. Each warpgroup has
  // key_tiles + 1 issue points; warpgroup 1 opens warpgroup 0's first turn and skips handing
  // over after its last, so every barrier sees as many arrivals as syncs.
  auto begin_turn = [&]() {
    if constexpr (Tr::kPingpong) named_barrier_sync(3 + wg, 256);
  };
  auto end_turn = [&](bool last_turn) {
    if constexpr (Tr::kPingpong) {
      if (!(last_turn && wg == 1)) named_barrier_arrive(3 + (wg ^ 1), 256);
    }
  };
  if constexpr (Tr::kPingpong) {
    if (wg == 1) named_barrier_arrive(3, 256);
  }

  mbarrier_wait(q_full, 0);
  begin_turn();
  mbarrier_wait(&k_full[0], 0);
  issue_qk(0);
  end_turn(false);
  wgmma_wait<0>();
  fence_operand(s);
  release(&k_empty[0]);
  softmax_tile<kBlockN>(s, row_max, row_sum, rescale, 0, row0, needs_mask(0), p);
  convert_p<T, kBlockN>(s, pa);

  for (int j = 1; j < key_tiles; ++j) {
    const int stage = j % kStages;
    const int prev = (j - 1) % kStages;
    begin_turn();
    mbarrier_wait(&k_full[stage], (j / kStages) & 1);
    issue_qk(stage);
    mbarrier_wait(&v_full[prev], ((j - 1) / kStages) & 1);
    issue_pv(prev);
    end_turn(false);
    wgmma_wait<1>();  // S of tile j is ready; P V of tile j - 1 may still run
    fence_operand(s);
    release(&k_empty[stage]);
    softmax_tile<kBlockN>(s, row_max, row_sum, rescale, j * kBlockN, row0, needs_mask(j), p);
    wgmma_wait<0>();
    fence_operand(o);
    fence_operand(pa);
    release(&v_empty[prev]);
    rescale_o<kHeadDim>(o, rescale);
    convert_p<T, kBlockN>(s, pa);
  }
  const int last = (key_tiles - 1) % kStages;
  begin_turn();
  mbarrier_wait(&v_full[last], ((key_tiles - 1) / kStages) & 1);
  issue_pv(last);
  end_turn(true);
  wgmma_wait<0>();
  fence_operand(o);
  release(&v_empty[last]);

  // Epilogue: normalise, stage O in this warpgroup's Q rows with the 128-byte swizzle TMA
  // expects, then one thread stores each 64-column panel.
  named_barrier_sync(1 + wg, 128);  // every warp of the warpgroup is done reading its Q rows
  unsigned char* o_stage = s_q + 64 * wg * Tr::kRowBytes;
  const int t = lane % 4;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    const int local = 16 * warp + lane / 4 + 8 * r;
#pragma unroll
    for (int j = 0; j < kHeadDim / 8; ++j) {
      const int chunk = (j % 8) ^ (local % 8);
      unsigned char* at = o_stage + (j / 8) * Tr::kQPanelBytes + local * Tr::kRowBytes +
                          chunk * 16 + 4 * t;
      *reinterpret_cast<uint32_t*>(at) =
          MmaElement<T>::pack(o[4 * j + 2 * r] * inv, o[4 * j + 2 * r + 1] * inv);
    }
    const int row = row0 + 8 * r;
    if (t == 0 && row < p.seq_q) {
      p.lse[static_cast<int64_t>(bh) * p.seq_q + row] =
          sum > 0.f ? row_max[r] * p.scale + logf(sum) : -INFINITY;
    }
  }
  fence_proxy_async();
  named_barrier_sync(1 + wg, 128);
  if (wtid == 0) {
#pragma unroll
    for (int pn = 0; pn < Tr::kPanels; ++pn)
      tma_store_4d(&p.o_map, o_stage + pn * Tr::kQPanelBytes, pn * 64, wg_row0, head, batch);
    bulk_commit();
    bulk_wait_read<0>();
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a target without sm_90a features: the host never launches this
#endif
}

}  // namespace stepscope::kernels::flash
