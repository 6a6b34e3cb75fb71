// FlashAttention backward for Hopper (sm_90a): wgmma, TMA and warp specialisation.
//
// Grid: one CTA per (key tile of 128, batch*head), head-major or tile-major with the heaviest key
// tiles (the first, under causal masking) first, whichever flash_grid_order.h picks; or, for
// short square causal grids at the 64 tile, one CTA per pair of key tiles j and key_tiles-1-j
// of a head, head-major (the kPaired kernel). Warpgroup 0 produces: warp 0 loads K and V once a
// tile, then per query tile Q and dO (TMA, 2 stages, mbarriers) and the tile's lse*log2(e) and
// D rows; warp 1 writes dQ
// (TMA reduce-add of what the consumers stage). Warpgroups 1 and 2 consume, each owning 64 keys:
//   S^T = K Q^T, dP^T = V dO^T                   (wgmma, both operands from shared memory)
//   P^T = exp2(S^T scale log2e - lse log2e), dS^T = P^T (dP^T - D)   (registers; masked)
//   dV += P^T dO, dK += dS^T Q                   (wgmma, A = P^T / dS^T from registers)
//   dS^T -> shared memory; dQ = dS K             (wgmma over all 128 keys, one step later; 64
//                                                 tile: each consumer 64 of the 128 query rows,
//                                                 128 tile: half of the head-dim columns)
//   dQ -> swizzled fp32 staging -> the dQ writer warp
// taking turns on the tensor cores (flash_backward_sm90_loop_pingpong.inc). dK (times the
// softmax scale) and dV leave through shared memory (flash_backward_sm90_epilogue.cuh).
//
// This file holds the kernel's arguments and entry: barrier set-up, the producer and dQ writer
// warps, the consumers' set-up and their epilogue (dK, dV). The consumer main loop is a
// statement block included into the kernel body; the shared-memory descriptors and wgmma
// sequences it uses are in flash_backward_sm90_smem.cuh, the tiles in
// flash_backward_sm90_traits.h.
#pragma once

#include "kernels/cuda/flash_backward_sm90_epilogue.cuh"
#include "kernels/cuda/flash_backward_sm90_smem.cuh"
#include "kernels/cuda/flash_backward_sm90_traits.h"
#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/flash_grid_order.h"
#include "kernels/cuda/flash_tile_order.cuh"
#include "kernels/cuda/sm90_async_copy.cuh"
#include "kernels/cuda/sm90_wgmma.cuh"

#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace stepscope::kernels::flash {

struct Sm90BackwardParams {
  CUtensorMap q, k, v, d_o;  // (head_dim, seq, heads, batch) views, see sm90_tensor_map.h
  CUtensorMap dq_accum;      // fp32 (head_dim, seq_q, batch*heads), reduced into
  BackwardParams p;
};

// The key tiles a CTA takes and where its queries start and end.
struct BackwardTileWork {
  int bh, batch, head;
  int n0;       // first key
  int m_begin;  // first query that sees a key of the tile
  int m_steps;  // query tiles of kBlockM from m_begin
};

template <int kBlockM, int kBlockN, bool kPaired>
__device__ __forceinline__ BackwardTileWork backward_tile_work(const BackwardParams& p, int item) {
  const TileOfBlock assigned = kPaired ? paired_tile_of_block(static_cast<int>(blockIdx.x), item, p.key_tiles)
                                       : backward_tile_of_block(static_cast<int>(blockIdx.x), p.key_tiles, p.head_group);
  BackwardTileWork w;
  w.bh = assigned.bh;
  w.batch = assigned.bh / p.heads;
  w.head = assigned.bh % p.heads;
  w.n0 = assigned.tile * kBlockN;
  // Queries before n0 see none of these keys under causal masking (n0 is a multiple of kBlockM).
  w.m_begin = p.causal ? w.n0 : 0;
  w.m_steps = w.m_begin < p.seq_q ? (p.seq_q - w.m_begin + kBlockM - 1) / kBlockM : 0;
  return w;
}

// K and V of the key tile from n0 into their buffers, on `kv_bar` (one thread).
template <typename Tr>
__device__ __forceinline__ void sm90_bwd_load_kv(const Sm90BackwardParams& args, unsigned char* smem, uint64_t* kv_bar,
                                                 int n0, int head, int batch) {
  using namespace sm90;
  mbarrier_arrive_expect_tx(kv_bar, 2 * Tr::kKBytes);
#pragma unroll
  for (int b = 0; b < Tr::kKBlocks; ++b)
    tma_load_4d(smem + Tr::kOffK + b * Tr::kKBlockBytes, &args.k, kv_bar, b * Tr::kKBlockCols, n0, head, batch);
#pragma unroll
  for (int b = 0; b < Tr::kColBlocks; ++b)
    tma_load_4d(smem + Tr::kOffV + b * Tr::kVBlockBytes, &args.v, kv_bar, b * 64, n0, head, batch);
}

// kPaired: the CTA takes a key tile and its mirror (paired_tile_of_block), one after the other;
// the stage ring, the turns and the dQ hand-offs run on from the first tile into the second, and
// the second tile's K and V load as soon as the consumers are done reading the first's.
template <typename T, int kHeadDim, bool kPaired>
__global__ void __launch_bounds__(Sm90BackwardTraits<kHeadDim>::kThreads, 1)
    flash_backward_sm90_kernel(const __grid_constant__ Sm90BackwardParams args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  using Tr = Sm90BackwardTraits<kHeadDim>;
  using E = MmaElement<T>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  const BackwardParams& p = args.p;

  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw_addr = smem_u32(smem_raw);
  unsigned char* smem = smem_raw + ((1024 - (raw_addr & 1023)) & 1023);
  const uint32_t base = smem_u32(smem);
  float* s_lse = reinterpret_cast<float*>(smem + Tr::kOffLse);
  float* s_d = reinterpret_cast<float*>(smem + Tr::kOffD);
  float* s_dq = reinterpret_cast<float*>(smem + Tr::kOffDq);
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + Tr::kOffBars);
  uint64_t* full = bars;                  // [kStages]: Q, dO, lse, D of a stage landed
  uint64_t* empty = bars + Tr::kStages;   // [kStages]: consumers are done with a stage
  uint64_t* kv_bar = bars + 2 * Tr::kStages;
  uint64_t* kv_free = bars + 2 * Tr::kStages + 1;  // kPaired: consumers are done with K and V
  const int tiles_here = kPaired ? tiles_of_paired_block(static_cast<int>(blockIdx.x), p.key_tiles) : 1;
  // The first tile's work before the warps part (the producer has few registers after that).
  const BackwardTileWork first = backward_tile_work<kBlockM, kBlockN, kPaired>(p, 0);

  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < Tr::kStages; ++s) {
      mbarrier_init(&full[s], 32);                           // the producer warp's lanes
      mbarrier_init(&empty[s], Tr::kConsumerThreads);  // every consumer thread arrives (below)
    }
    mbarrier_init(kv_bar, 1);
    if (kPaired) mbarrier_init(kv_free, Tr::kConsumerThreads / 32);
    fence_barrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    // ---------------- producer ----------------
    setmaxnreg_dec<Tr::kProducerRegs>();
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (warp == 1) {
      // dQ writer: reduces each consumer's staged dQ into the fp32 accumulator, in the order
      // the consumers stage them (step by step, consumer 0 first), and frees the staging area
      // once the reduce has read it.
      for (int item = 0; item < tiles_here; ++item) {
        const BackwardTileWork w = item == 0 ? first : backward_tile_work<kBlockM, kBlockN, kPaired>(p, item);
        if (w.m_steps > 0) {
          named_barrier_arrive(Tr::kBarDqEmpty, Tr::kDqHandoffThreads);
          named_barrier_arrive(Tr::kBarDqEmpty + 1, Tr::kDqHandoffThreads);
        }
        // One (step, consumer) pair per iteration, not unrolled: few registers here.
#pragma unroll 1
        for (int k = 0; k < 2 * w.m_steps; ++k) {
          const int c = k & 1;
          named_barrier_sync(Tr::kBarDqFull + c, Tr::kDqHandoffThreads);
          if (lane == 0) {
            const uint32_t src = base + Tr::kOffDq + c * (Tr::kDqCols / 32) * 8192;
            const int row = w.m_begin + (k >> 1) * kBlockM + (Tr::kDqSplitRows ? 64 * c : 0);
            const int col = Tr::kDqSplitRows ? 0 : c * Tr::kDqCols;
#pragma unroll
            for (int b = 0; b < Tr::kDqCols / 32; ++b) {
              if (col + 32 * b < p.head_dim) tma_reduce_add_3d(&args.dq_accum, src + b * 8192, col + 32 * b, row, w.bh);
            }
            bulk_commit();
            bulk_wait_read<0>();
          }
          __syncwarp();
          if (k + 2 < 2 * w.m_steps) named_barrier_arrive(Tr::kBarDqEmpty + c, Tr::kDqHandoffThreads);
        }
      }
      // No wait for the last reduces to land in global memory: every one has read its staging
      // area (above), and the grid's end orders their writes before the dQ conversion kernel.
      return;
    }
    if (warp != 0) return;
    // Each lane owns kRows consecutive rows of lse and D, read with one vector load each when
    // aligned and in range; rows past seq_q get lse = +inf (P = 0 there) and D = 0.
    constexpr int kRows = kBlockM / 32;
    using RowVec = std::conditional_t<kRows == 4, float4, float2>;
    int step0 = 0;
    for (int item = 0; item < tiles_here; ++item) {
      const BackwardTileWork w = item == 0 ? first : backward_tile_work<kBlockM, kBlockN, kPaired>(p, item);
      // K and V: the first tile's at once; a later tile's behind its first Q and dO, once the
      // consumers are done reading the tile before's (below).
      if (item == 0 && lane == 0) {
        tma_prefetch_map(&args.q);
        tma_prefetch_map(&args.d_o);
        sm90_bwd_load_kv<Tr>(args, smem, kv_bar, w.n0, w.head, w.batch);
      }
      const float* lse = p.lse + static_cast<int64_t>(w.bh) * p.seq_q;
      const float* d_rowsum = p.d_rowsum + static_cast<int64_t>(w.bh) * p.seq_q;
      const bool vec_ok =
          (reinterpret_cast<uintptr_t>(lse) | reinterpret_cast<uintptr_t>(d_rowsum)) % sizeof(RowVec) == 0;
      for (int it = 0; it < w.m_steps; ++it) {
        const int gs = step0 + it;
        const int s = gs % Tr::kStages;
        const int m0 = w.m_begin + it * kBlockM;
        // lse and D go to registers before the wait for the stage, so their latency overlaps it.
        const int row0 = m0 + lane * kRows;
        float lv[kRows];
        float dv_rows[kRows];
        if (vec_ok && row0 + kRows <= p.seq_q) {
          const RowVec a = *reinterpret_cast<const RowVec*>(lse + row0);
          const RowVec b = *reinterpret_cast<const RowVec*>(d_rowsum + row0);
          static_assert(sizeof(RowVec) == sizeof(lv), "one vector per lane");
          memcpy(lv, &a, sizeof(a));
          memcpy(dv_rows, &b, sizeof(b));
        } else {
#pragma unroll
          for (int i = 0; i < kRows; ++i) {
            lv[i] = row0 + i < p.seq_q ? lse[row0 + i] : INFINITY;
            dv_rows[i] = row0 + i < p.seq_q ? d_rowsum[row0 + i] : 0.f;
          }
        }
        if (gs >= Tr::kStages) mbarrier_wait_asm_loop(&empty[s], ((gs / Tr::kStages) - 1) & 1);
        if (lane == 0) {
          mbarrier_expect_tx(&full[s], 2 * Tr::kQBytes);
#pragma unroll
          for (int b = 0; b < Tr::kColBlocks; ++b) {
            tma_load_4d(smem + Tr::kOffQ + s * Tr::kQBytes + b * Tr::kQBlockBytes, &args.q, &full[s],
                        b * 64, m0, w.head, w.batch);
            tma_load_4d(smem + Tr::kOffDo + s * Tr::kQBytes + b * Tr::kQBlockBytes, &args.d_o, &full[s],
                        b * 64, m0, w.head, w.batch);
          }
        }
#pragma unroll
        for (int i = 0; i < kRows; ++i) lv[i] *= static_cast<float>(M_LOG2E);
        RowVec a, b;
        memcpy(&a, lv, sizeof(a));
        memcpy(&b, dv_rows, sizeof(b));
        *reinterpret_cast<RowVec*>(s_lse + s * kBlockM + lane * kRows) = a;
        *reinterpret_cast<RowVec*>(s_d + s * kBlockM + lane * kRows) = b;
        mbarrier_arrive(&full[s]);
        if (kPaired && item > 0 && it == 0) {
          mbarrier_wait_asm_loop(kv_free, (item - 1) & 1);
          if (lane == 0) sm90_bwd_load_kv<Tr>(args, smem, kv_bar, w.n0, w.head, w.batch);
        }
      }
      step0 += w.m_steps;
    }
    return;
  }

  // ---------------- consumers ----------------
  setmaxnreg_inc<Tr::kConsumerRegs>();
  const int wg = warpgroup - 1;          // which 64 keys of the tile
  const int ctid = threadIdx.x - 128;    // 0 .. kConsumerThreads-1
  const int wtid = ctid % 128;
  const int warp_in_wg = wtid / 32;
  const int lane = wtid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int key_row0 = 64 * wg + 16 * warp_in_wg;  // this warp's first key within the tile

  const uint32_t k_base = base + Tr::kOffK;
  const uint32_t v_base = base + Tr::kOffV;
  const uint32_t ds_base = base + Tr::kOffDs;

  float dv[kHeadDim / 2];
  float dk[kHeadDim / 2];
  int step0 = 0;
  for (int item = 0; item < tiles_here; ++item) {
    const BackwardTileWork w = item == 0 ? first : backward_tile_work<kBlockM, kBlockN, kPaired>(p, item);
    const int n0 = w.n0;
    const int m_begin = w.m_begin;
    const int m_steps = w.m_steps;
#pragma unroll
    for (int i = 0; i < kHeadDim / 2; ++i) dv[i] = dk[i] = 0.f;

    mbarrier_wait_asm_loop(kv_bar, item & 1);
    const bool key_tail = n0 + kBlockN > p.seq_k;

    // The main loop is a statement block of this body (see its header).
#include "kernels/cuda/flash_backward_sm90_loop_pingpong.inc"

    // K and V are read by no further wgmma of this tile: the next tile's may load.
    if (kPaired && lane == 0) mbarrier_arrive(kv_free);
    step0 += m_steps;

    // dK (scaled) and dV through shared memory (flash_backward_sm90_epilogue.cuh), staged where
    // the traits say (Tr::kOffDkDvStage). Both consumers first finish their last wgmma, which read
    // K (dQ) and the dS^T buffers.
    static_assert(!kPaired || Tr::kOffDkDvStage == Tr::kOffDs, "paired tiles stage outside K and V");
    const uint32_t stage = base + Tr::kOffDkDvStage;
    named_barrier_sync(Tr::kBarEpilogue, Tr::kConsumerThreads);
    sm90_bwd_stage_rows<E, kHeadDim>(dk, p.scale, stage, key_row0, lane);
    sm90_bwd_stage_rows<E, kHeadDim>(dv, 1.f, stage + Tr::kKBytes, key_row0, lane);
    named_barrier_sync(Tr::kBarEpilogue, Tr::kConsumerThreads);
    sm90_bwd_write_rows<T, kHeadDim, kBlockN, Tr::kConsumerThreads>(
        stage, p.dk.head<T>(w.batch, w.head), p.dk.row_stride, n0, p.seq_k, p.head_dim, ctid);
    sm90_bwd_write_rows<T, kHeadDim, kBlockN, Tr::kConsumerThreads>(
        stage + Tr::kKBytes, p.dv.head<T>(w.batch, w.head), p.dv.row_stride, n0, p.seq_k, p.head_dim, ctid);
    // Paired tiles: the staging read back before the next tile's first dS^T store.
    if (kPaired && item + 1 < tiles_here) named_barrier_sync(Tr::kBarEpilogue, Tr::kConsumerThreads);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a target without sm_90a features: the host never launches this
#endif
}

}  // namespace stepscope::kernels::flash
