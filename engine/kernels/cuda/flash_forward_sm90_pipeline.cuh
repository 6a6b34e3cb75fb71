// The Hopper forward's parameters, shared-memory layout and producer side, shared by the
// one-tile kernel (flash_forward_sm90.cuh) and the persistent one
// (flash_forward_sm90_persistent.cuh): the buffers, the barriers, and the TMA loads of Q and K/V.
#pragma once

#include "kernels/cuda/flash_sm90_traits.h"
#include "kernels/cuda/sm90_async_copy.cuh"

#include <cuda.h>

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
  int bh_count = 1;        // batch * heads (the persistent kernel's tile count)
  unsigned int* tile_counter = nullptr;  // the persistent kernel's (flash_tile_counters.h)
};

namespace sm90_forward {

// The Hopper forward's shared memory, from its 1024-byte aligned base: Q (which, with
// OStaging::in_q_rows, also takes each consumer warpgroup's O rows), kStages K and V tiles, then
// the barriers: Q full, and per stage K full, V full, K empty, V empty (the persistent kernel's
// own follow).
template <int kHeadDim, int kStageCount = sm90_forward_default_stages(kHeadDim)>
struct Sm90ForwardBuffers {
  using Tr = Sm90ForwardTraits<kHeadDim, kStageCount>;
  __device__ __forceinline__ explicit Sm90ForwardBuffers(unsigned char* smem)
      : q(smem),
        k(q + Tr::kQBytes),
        v(k + Tr::kStages * Tr::kKvTileBytes),
        q_full(reinterpret_cast<uint64_t*>(v + Tr::kStages * Tr::kKvTileBytes)),
        k_full(q_full + 1),
        v_full(k_full + Tr::kStages),
        k_empty(v_full + Tr::kStages),
        v_empty(k_empty + Tr::kStages) {}
  unsigned char* q;
  unsigned char* k;
  unsigned char* v;
  uint64_t* q_full;
  uint64_t* k_full;
  uint64_t* v_full;
  uint64_t* k_empty;
  uint64_t* v_empty;
};

// The 1024-byte aligned base of the dynamic shared memory (the swizzle atom; the traits'
// kAlignSlack pays for the rounding).
__device__ __forceinline__ unsigned char* sm90_aligned_smem(unsigned char* raw) {
  return reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~static_cast<uintptr_t>(1023));
}

// K/V tiles a query tile starting at row m0 reads: up to its last row when causal.
template <int kHeadDim>
__device__ __forceinline__ int forward_key_tiles(const Sm90ForwardParams& p, int m0) {
  using Tr = Sm90ForwardTraits<kHeadDim>;
  const int key_end = p.causal ? min(p.seq_k, m0 + Tr::kBlockM) : p.seq_k;
  return (key_end + Tr::kBlockN - 1) / Tr::kBlockN;
}

// One thread: the Q-full and per-stage barriers (the empty ones take one arrival per consumer
// warp).
template <int kHeadDim, int kStageCount>
__device__ __forceinline__ void init_forward_barriers(const Sm90ForwardBuffers<kHeadDim, kStageCount>& buf) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim, kStageCount>;
  mbarrier_init(buf.q_full, 1);
#pragma unroll
  for (int s = 0; s < Tr::kStages; ++s) {
    mbarrier_init(&buf.k_full[s], 1);
    mbarrier_init(&buf.v_full[s], 1);
    mbarrier_init(&buf.k_empty[s], 4 * Tr::kConsumerWarpgroups);
    mbarrier_init(&buf.v_empty[s], 4 * Tr::kConsumerWarpgroups);
  }
}

// The producer thread's load of the Q tile starting at row m0.
template <int kHeadDim, int kStageCount>
__device__ __forceinline__ void load_forward_q(const Sm90ForwardParams& p,
                                               const Sm90ForwardBuffers<kHeadDim, kStageCount>& buf, int m0,
                                               int batch, int head) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim, kStageCount>;
  mbarrier_arrive_expect_tx(buf.q_full, Tr::kQBytes);
#pragma unroll
  for (int pn = 0; pn < Tr::kPanels; ++pn)
    tma_load_4d(buf.q + pn * Tr::kQPanelBytes, &p.q_map, buf.q_full, pn * 64, m0, head, batch);
}

// The producer thread's loads of K/V tile j into the stage ring's slot `loaded` (K/V tiles this
// CTA loaded before), each once the consumers have freed its stage.
template <int kHeadDim, int kStageCount>
__device__ __forceinline__ void load_forward_kv(const Sm90ForwardParams& p,
                                                const Sm90ForwardBuffers<kHeadDim, kStageCount>& buf, int loaded,
                                                int j, int batch, int head) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim, kStageCount>;
  const int stage = loaded % Tr::kStages;
  const uint32_t free_phase = ((loaded / Tr::kStages) & 1) ^ 1;  // a fresh barrier passes parity 1
  unsigned char* k_dst = buf.k + stage * Tr::kKvTileBytes;
  unsigned char* v_dst = buf.v + stage * Tr::kKvTileBytes;
  mbarrier_wait(&buf.k_empty[stage], free_phase);
  mbarrier_arrive_expect_tx(&buf.k_full[stage], Tr::kKvTileBytes);
#pragma unroll
  for (int pn = 0; pn < Tr::kPanels; ++pn)
    tma_load_4d(k_dst + pn * Tr::kKvPanelBytes, &p.k_map, &buf.k_full[stage], pn * 64, j * Tr::kBlockN, head, batch);
  mbarrier_wait(&buf.v_empty[stage], free_phase);
  mbarrier_arrive_expect_tx(&buf.v_full[stage], Tr::kKvTileBytes);
#pragma unroll
  for (int pn = 0; pn < Tr::kPanels; ++pn)
    tma_load_4d(v_dst + pn * Tr::kKvPanelBytes, &p.v_map, &buf.v_full[stage], pn * 64, j * Tr::kBlockN, head, batch);
}

}  // namespace sm90_forward

}  // namespace stepscope::kernels::flash
