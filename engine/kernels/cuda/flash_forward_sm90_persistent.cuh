// The Hopper forward as a persistent kernel: one CTA per SM takes tiles in grid order from an
// atomic counter, so each SM overlaps one tile's epilogue and the next tile's first loads. The
// tile's math is flash_forward_sm90_kernel's (consume_forward_tile).
//
// Warp 1 of the producer warpgroup schedules: once the loader warp has issued every load of a
// tile, it takes the next (an atomic on the counter), maps it to its rows, batch and head, and
// hands that to the loader warp and to the consumers through shared-memory slots, ordered by
// named barriers that every side syncs on. The slots are written and read with shared-memory
// atomics: compute-sanitizer's racecheck does not take a named barrier of part of the CTA as
// an order (it flagged plain loads and stores here), and a handful of atomics per tile cost
// nothing. Warp 0 loads: the next tile's first K/V stages (freed by the current tile alone)
// while the consumers finish the current one, and its Q once they release Q's rows.
#pragma once

#include "kernels/cuda/flash_forward_sm90_consumer.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

namespace stepscope::kernels::flash {

// K/V stages of the persistent kernel: at d = 128 one fewer than the one-tile kernel, which
// makes room for O's own buffer (below): 5-12 % faster than three stages with O in Q's rows
// over 32-256 heads of 512-2048 rows (H100, 2026-11-25). Building with
// STEPSCOPE_SM90_PERSISTENT_D128_STAGES=3 restores those for comparisons.
#ifndef STEPSCOPE_SM90_PERSISTENT_D128_STAGES
#define STEPSCOPE_SM90_PERSISTENT_D128_STAGES 2
#endif
template <int kHeadDim>
constexpr int kSm90PersistentStages =
    kHeadDim == 64 ? sm90_forward_default_stages(64) : STEPSCOPE_SM90_PERSISTENT_D128_STAGES;
template <int kHeadDim>
using Sm90PersistentForwardTraits = Sm90ForwardTraits<kHeadDim, kSm90PersistentStages<kHeadDim>>;

// A tile as the scheduler hands it over, mapped once by the scheduler warp rather than by every
// thread that takes it (forward_tile_of_item and the head's division are some 100 instructions
// a warp): its first query row (-1 when no tile is left), batch and head.
struct ForwardTile {
  int m0, batch, head;
};
// Its shared-memory slot, a field per lane of the warps that write and read it.
struct ForwardTileSlot {
  int field[3];
};

__device__ __forceinline__ void write_tile_slot(ForwardTileSlot* slot, int lane, const ForwardTile& tile) {
  if (lane < 3) atomicExch(&slot->field[lane], lane == 0 ? tile.m0 : lane == 1 ? tile.batch : tile.head);
}

// Every lane of the calling warp gets the tile.
__device__ __forceinline__ ForwardTile read_tile_slot(ForwardTileSlot* slot, int lane) {
  const int field = lane < 3 ? atomicAdd(&slot->field[lane], 0) : 0;
  constexpr unsigned kAll = 0xffffffffu;
  return {__shfl_sync(kAll, field, 0), __shfl_sync(kAll, field, 1), __shfl_sync(kAll, field, 2)};
}

// Beyond the tile layout: the Q-empty barrier and the tile slots (the loader's, and the
// consumers' two); then, where it fits, an O buffer on the next 1024-byte boundary.
constexpr std::size_t kSm90PersistentExtraBytes = 8 + 3 * sizeof(ForwardTileSlot);
template <int kHeadDim>
constexpr bool kSm90PersistentOwnOBuffer =
    Sm90PersistentForwardTraits<kHeadDim>::kSmemBytes + kSm90PersistentExtraBytes + 1024 +
        Sm90PersistentForwardTraits<kHeadDim>::kQBytes <=
    kSm90SmemPerBlock;

// Where the persistent kernel stages O: in a buffer of its own where shared memory holds one (Q
// then loads for the next tile while the current one ends), else in Q's rows.
template <int kHeadDim>
constexpr sm90_forward::OStaging kSm90PersistentOStaging =
    kSm90PersistentOwnOBuffer<kHeadDim> ? sm90_forward::OStaging::own_buffer : sm90_forward::OStaging::in_q_rows;

template <int kHeadDim>
constexpr std::size_t kSm90PersistentForwardSmemBytes =
    Sm90PersistentForwardTraits<kHeadDim>::kSmemBytes + kSm90PersistentExtraBytes +
    (kSm90PersistentOwnOBuffer<kHeadDim> ? 1024 + Sm90PersistentForwardTraits<kHeadDim>::kQBytes : 0);

// Called once per CTA, after its last claim on `counter` (flash_tile_counters.h): the last CTA
// to call it leaves both words zero for the next launch. Each CTA's claims are ordered before
// its count, so the last count out comes after every claim.
__device__ __forceinline__ void release_tile_counter(unsigned int* counter) {
  __threadfence();
  if (atomicAdd(counter + 1, 1u) == gridDim.x - 1) {
    __threadfence();
    atomicExch(counter, 0u);
    atomicExch(counter + 1, 0u);
  }
}

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(Sm90PersistentForwardTraits<kHeadDim>::kThreads, 1)
    flash_forward_sm90_persistent_kernel(const __grid_constant__ Sm90ForwardParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  using namespace sm90_forward;
  using Tr = Sm90PersistentForwardTraits<kHeadDim>;
  constexpr int kStages = Tr::kStages;
  // Named barriers 1-4 are the consumers' (epilogue, ping-pong turns); 5 hands a tile from the
  // scheduler warp to the consumers, 6 to the loader warp.
  constexpr uint32_t kConsumerItemBarrier = 5, kLoaderItemBarrier = 6;
  constexpr uint32_t kConsumerItemThreads = 32 + 128 * Tr::kConsumerWarpgroups;
  constexpr uint32_t kLoaderItemThreads = 64;
  constexpr unsigned kAll = 0xffffffffu;

  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = sm90_aligned_smem(smem_raw);
  const Sm90ForwardBuffers<kHeadDim, kStages> buf(smem);
  uint64_t* q_empty = buf.v_empty + Tr::kStages;
  // Tiles handed over: the loader's slot, then the consumers' two.
  ForwardTileSlot* s_loader_tile = reinterpret_cast<ForwardTileSlot*>(q_empty + 1);
  ForwardTileSlot* s_consumer_tile = s_loader_tile + 1;
  constexpr OStaging kStaging = kSm90PersistentOStaging<kHeadDim>;
  unsigned char* o_buffer = sm90_aligned_smem(reinterpret_cast<unsigned char*>(s_consumer_tile + 2));

  const int tiles = p.row_tiles * p.bh_count;
  if (threadIdx.x == 0) {
    init_forward_barriers(buf);
    mbarrier_init(q_empty, 4 * Tr::kConsumerWarpgroups);  // one arrival per consumer warp
    fence_barrier_init();
  }
  __syncthreads();

  if (threadIdx.x < 128) {  // producer warpgroup: warp 0 loads (its lane 0), warp 1 schedules
    setmaxnreg_dec<Tr::kProducerRegs>();
    const int lane = threadIdx.x % 32;
    if (threadIdx.x >= 64) return;
    if (threadIdx.x >= 32) {
      for (int n = 0;; ++n) {
        // Claim a tile only once the loader has issued every load of the previous one: a claim
        // at the start of a tile would bind each CTA's next tile before anyone knows which SM
        // frees first (a round-robin that ran 32 heads x 1024 rows 1.42x slower than one CTA
        // a tile).
        named_barrier_sync(kLoaderItemBarrier, kLoaderItemThreads);  // the loader is ready
        int item = static_cast<int>(blockIdx.x);
        if (n > 0 && lane == 0) item = static_cast<int>(gridDim.x + atomicAdd(p.tile_counter, 1u));
        item = __shfl_sync(kAll, item, 0);
        ForwardTile tile{-1, 0, 0};
        if (item < tiles) {  // the warp maps it once for everyone
          const TileOfBlock assigned = forward_tile_of_item(item, p.row_tiles, p.bh_count, p.causal, p.head_group);
          tile = {assigned.tile * Tr::kBlockM, assigned.bh / p.heads, assigned.bh % p.heads};
        }
        write_tile_slot(s_loader_tile, lane, tile);
        named_barrier_sync(kLoaderItemBarrier, kLoaderItemThreads);  // the loader may read it
        // The loader reads its slot before it syncs for the next claim. The consumers read slot
        // n % 2 after the barrier below; they read this slot's last tile (n - 2) before the
        // previous one.
        write_tile_slot(&s_consumer_tile[n & 1], lane, tile);
        named_barrier_sync(kConsumerItemBarrier, kConsumerItemThreads);
        if (tile.m0 < 0) {
          if (lane == 0) release_tile_counter(p.tile_counter);
          return;
        }
      }
    }
    int loaded = 0;  // K/V tiles loaded so far, over every tile of this CTA
    for (int n = 0;; ++n) {
      named_barrier_sync(kLoaderItemBarrier, kLoaderItemThreads);  // ready for the next tile
      named_barrier_sync(kLoaderItemBarrier, kLoaderItemThreads);  // the scheduler has claimed it
      const ForwardTile tile = read_tile_slot(s_loader_tile, lane);
      if (tile.m0 < 0) return;
      if (lane == 0) {
        const int key_tiles = forward_key_tiles<kHeadDim>(p, tile.m0);
        // K/V tiles before Q whose stages the previous tile frees before it frees Q: up to
        // kStages where Q holds the previous tile's O until its store has read it, the first
        // alone where Q is free after the previous tile's last S.
        const int early = min(key_tiles, kStaging == OStaging::own_buffer ? 1 : Tr::kStages);
        for (int j = 0; j < early; ++j) load_forward_kv(p, buf, loaded++, j, tile.batch, tile.head);
        mbarrier_wait(q_empty, (n & 1) ^ 1);  // a fresh barrier passes parity 1
        load_forward_q(p, buf, tile.m0, tile.batch, tile.head);
        for (int j = early; j < key_tiles; ++j) load_forward_kv(p, buf, loaded++, j, tile.batch, tile.head);
      }
      __syncwarp();
    }
  }

  setmaxnreg_inc<Tr::kConsumerRegs>();
  const int wg = threadIdx.x / 128 - 1;
  const int lane = threadIdx.x % 32;
  int consumed = 0;  // K/V tiles consumed so far (warp-uniform, so stages stay uniform registers)
  for (int n = 0;; ++n) {
    named_barrier_sync(kConsumerItemBarrier, kConsumerItemThreads);
    const ForwardTile tile = read_tile_slot(&s_consumer_tile[n & 1], lane);
    if (tile.m0 < 0) break;
    const int key_tiles = forward_key_tiles<kHeadDim>(p, tile.m0);
    consume_forward_tile<T, kHeadDim, kStaging, kStages>(p, smem, tile.batch * p.heads + tile.head, tile.batch,
                                                         tile.head, tile.m0, key_tiles, consumed,
                                                         static_cast<uint32_t>(n & 1), o_buffer, q_empty);
    consumed += key_tiles;
    if constexpr (kStaging == OStaging::in_q_rows) {
      named_barrier_sync(1 + wg, 128);  // the warpgroup's store has read O out of the Q rows
      if (lane == 0) mbarrier_arrive(q_empty);
    }
  }
  // The last store must have read the O buffer before the CTA's shared memory goes.
  if (kStaging == OStaging::own_buffer && threadIdx.x % 128 == 0) bulk_wait_read<0>();
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a target without sm_90a features: the host never launches this
#endif
}

}  // namespace stepscope::kernels::flash
