// Hopper (sm_90a) flash-attention backward: the shared-memory operands of the consumer main
// loop. wgmma descriptors of the K, V, Q, dO and dS^T tiles (layouts in
// flash_backward_sm90_traits.h), the wgmma sequences over them that the loop issues (S^T / dP^T,
// dV / dK, dQ) and the staging of dQ for its TMA reduce.
#pragma once

#include "kernels/cuda/flash_backward_sm90_traits.h"
#include "kernels/cuda/sm90_async_copy.cuh"
#include "kernels/cuda/sm90_wgmma.cuh"

#include <cstdint>

namespace stepscope::kernels::flash {

// K-major operands of S^T = K Q^T and dP^T = V dO^T (K-dim = head dim, step k = 16 columns).
// A = K: this consumer's 64 keys (wg), 128- or 64-byte-swizzled column blocks.
template <typename Tr>
__device__ __forceinline__ uint64_t sm90_bwd_k_desc(uint32_t k_base, int wg, int k) {
  using namespace sm90;
  if constexpr (Tr::kKSwizzleBytes == 128) {
    return make_smem_desc(k_base + (k / 4) * Tr::kKBlockBytes + 64 * wg * 128 + (k % 4) * 32, 16, 1024,
                          kSwizzle128);
  } else {
    return make_smem_desc(k_base + (k / 2) * Tr::kKBlockBytes + 64 * wg * 64 + (k % 2) * 32, 16, 512,
                          kSwizzle64);
  }
}

// A = V: this consumer's 64 keys (wg), 64-column blocks with 128-byte swizzle.
template <typename Tr>
__device__ __forceinline__ uint64_t sm90_bwd_v_desc(uint32_t v_base, int wg, int k) {
  using namespace sm90;
  return make_smem_desc(v_base + (k / 4) * Tr::kVBlockBytes + 64 * wg * 128 + (k % 4) * 32, 16, 1024,
                        kSwizzle128);
}

// B = the stage's Q or dO tile (q_base): all kBlockM query rows, 64-column blocks.
template <typename Tr>
__device__ __forceinline__ uint64_t sm90_bwd_q_desc(uint32_t q_base, int k) {
  using namespace sm90;
  return make_smem_desc(q_base + (k / 4) * Tr::kQBlockBytes + (k % 4) * 32, 16, 1024, kSwizzle128);
}

// MN-major B of dV += P^T dO and dK += dS^T Q: the stage's dO or Q tile read with the head dim
// contiguous; K-dim = the queries, step kk = 16 of them.
template <typename Tr>
__device__ __forceinline__ uint64_t sm90_bwd_q_mn_desc(uint32_t q_base, int kk) {
  using namespace sm90;
  return make_smem_desc(q_base + kk * 2048, Tr::kQBlockBytes, 1024, kSwizzle128);
}

// dQ = dS K, A = dS^T read MN-major from the buffer at ds (128 keys x kBlockM queries, 64-query
// blocks of 128 x 128 bytes, 128-byte swizzle); K-dim = the tile's keys, step kk = 16 of them.
// Row split: this consumer's 64 queries (wg); column split: all 64 queries.
template <typename Tr>
__device__ __forceinline__ uint64_t sm90_bwd_ds_desc(uint32_t ds, int wg, int kk) {
  using namespace sm90;
  if constexpr (Tr::kDqSplitRows) {
    return make_smem_desc(ds + wg * (Tr::kBlockN * 128) + kk * 2048, 8192, 1024, kSwizzle128);
  } else {
    return make_smem_desc(ds + kk * 2048, 8192, 1024, kSwizzle128);
  }
}

// dQ = dS K, B = K read MN-major (head dim contiguous). Row split: all columns; column split:
// this consumer's half of them (wg).
template <typename Tr>
__device__ __forceinline__ uint64_t sm90_bwd_k_mn_desc(uint32_t k_base, int wg, int kk) {
  using namespace sm90;
  if constexpr (Tr::kDqSplitRows) {
    static_assert(Tr::kKSwizzleBytes == 64, "row-split dQ reads the 64-byte-swizzled K");
    return make_smem_desc(k_base + kk * 1024, Tr::kKBlockBytes, 512, kSwizzle64);
  } else {
    static_assert(Tr::kKSwizzleBytes == 128, "column-split dQ reads the 128-byte-swizzled K");
    return make_smem_desc(k_base + wg * Tr::kKBlockBytes + kk * 2048, 8192, 1024, kSwizzle128);
  }
}

// S^T = K Q^T and dP^T = V dO^T for this consumer's 64 keys and the step's kBlockM queries:
// fence, then one commit group each.
template <typename T, int kHeadDim, typename Tr = Sm90BackwardTraits<kHeadDim>>
__device__ __forceinline__ void sm90_bwd_issue_st_dpt(float (&st)[Tr::kBlockM / 2],
                                                      float (&dpt)[Tr::kBlockM / 2], uint32_t k_base,
                                                      uint32_t v_base, uint32_t q_base, uint32_t do_base,
                                                      int wg) {
  using namespace sm90;
  wgmma_fence();
#pragma unroll
  for (int k = 0; k < kHeadDim / 16; ++k) {
    const uint64_t a = sm90_bwd_k_desc<Tr>(k_base, wg, k);
    const uint64_t b = sm90_bwd_q_desc<Tr>(q_base, k);
    Wgmma<Tr::kBlockM>::template ss<T, 0, 0>(st, a, b, k > 0);
  }
  wgmma_commit();
#pragma unroll
  for (int k = 0; k < kHeadDim / 16; ++k) {
    const uint64_t a = sm90_bwd_v_desc<Tr>(v_base, wg, k);
    const uint64_t b = sm90_bwd_q_desc<Tr>(do_base, k);
    Wgmma<Tr::kBlockM>::template ss<T, 0, 0>(dpt, a, b, k > 0);
  }
  wgmma_commit();
}

// dV += P^T dO and dK += dS^T Q (A = P^T / dS^T fragments from registers): fence, one commit
// group for both.
template <typename T, int kHeadDim, typename Tr = Sm90BackwardTraits<kHeadDim>>
__device__ __forceinline__ void sm90_bwd_issue_dv_dk(float (&dv)[kHeadDim / 2], float (&dk)[kHeadDim / 2],
                                                     uint32_t (&pa)[Tr::kBlockM / 16][4],
                                                     uint32_t (&dsa)[Tr::kBlockM / 16][4], uint32_t q_base,
                                                     uint32_t do_base) {
  using namespace sm90;
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < Tr::kBlockM / 16; ++kk) {
    const uint64_t b = sm90_bwd_q_mn_desc<Tr>(do_base, kk);
    Wgmma<kHeadDim>::template rs<T, 1>(dv, pa[kk], b, true);
  }
#pragma unroll
  for (int kk = 0; kk < Tr::kBlockM / 16; ++kk) {
    const uint64_t b = sm90_bwd_q_mn_desc<Tr>(q_base, kk);
    Wgmma<kHeadDim>::template rs<T, 1>(dk, dsa[kk], b, true);
  }
  wgmma_commit();
}

// dQ (this consumer's part) = dS K from the dS^T buffer at ds and K (no fence, no commit).
template <typename T, typename Tr>
__device__ __forceinline__ void sm90_bwd_issue_dq(float (&dq)[Tr::kDqCols / 2], uint32_t ds,
                                                  uint32_t k_base, int wg) {
  using namespace sm90;
#pragma unroll
  for (int kk = 0; kk < Tr::kBlockN / 16; ++kk) {
    const uint64_t a = sm90_bwd_ds_desc<Tr>(ds, wg, kk);
    const uint64_t b = sm90_bwd_k_mn_desc<Tr>(k_base, wg, kk);
    Wgmma<Tr::kDqCols>::template ss<T, 1, 1>(dq, a, b, kk > 0);
  }
}

// Stages this consumer's dQ (64 rows x kDqCols fp32) at dq_base as 32-column boxes (64 rows x
// 128 bytes, 128-byte swizzle: 16-byte chunk c of row r at chunk c ^ (r % 8), r % 8 == g).
// In the store for column group j, lanes with t >= 2 store group j ^ 2 instead: with every lane
// on group j, each half-warp's 8-byte stores covered only four chunks of its rows, two rows
// per bank (ncu: 3.9 wavefronts per store request); j ^ 2 moves them onto the other four.
template <typename Tr>
__device__ __forceinline__ void sm90_bwd_stage_dq(const float (&dq)[Tr::kDqCols / 2], uint32_t dq_base,
                                                  int warp_in_wg, int g, int t) {
  static_assert(Tr::kDqCols / 8 % 4 == 0, "column groups pair as j and j ^ 2 within fours");
  const bool swapped = t >= 2;
#pragma unroll
  for (int j = 0; j < Tr::kDqCols / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int mine = swapped ? (j ^ 2) : j;
      const int row = 16 * warp_in_wg + g + 8 * h;
      const int col = 8 * mine + 2 * t;
      const uint32_t addr =
          dq_base + (col / 32) * 8192 + row * 128 + ((((col % 32) / 4) ^ g) * 16) + (col % 4) * 4;
      const float x = swapped ? dq[4 * (j ^ 2) + 2 * h] : dq[4 * j + 2 * h];
      const float y = swapped ? dq[4 * (j ^ 2) + 2 * h + 1] : dq[4 * j + 2 * h + 1];
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(x), "f"(y) : "memory");
    }
}

// Hands this consumer's dQ to the dQ writer warp: waits until the writer's last reduce has read
// the staging area, stages, and signals it full.
template <typename Tr>
__device__ __forceinline__ void sm90_bwd_hand_dq(const float (&dq)[Tr::kDqCols / 2], uint32_t dq_base,
                                                 int wg, int warp_in_wg, int g, int t) {
  using namespace sm90;
  named_barrier_sync(Tr::kBarDqEmpty + wg, Tr::kDqHandoffThreads);
  sm90_bwd_stage_dq<Tr>(dq, dq_base, warp_in_wg, g, t);
  fence_proxy_async();
  named_barrier_arrive(Tr::kBarDqFull + wg, Tr::kDqHandoffThreads);
}

// 2^x flushing denormals: one MUFU.EX2 (exp2f adds a range fix-up around it). P below 2^-126
// contributes nothing at bf16/fp16 precision.
__device__ __forceinline__ float sm90_bwd_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace stepscope::kernels::flash
