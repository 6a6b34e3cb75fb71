// Tile shapes and shared-memory plan of the Hopper (sm_90a) flash-attention backward, apart
// from the kernel (flash_backward_sm90.cuh and the loop it includes).
//
// One CTA owns kBlockN = 128 keys of one (batch, head) and walks the query tiles (kBlockM = 128
// rows each for the 64 tile, 64 for the 128 tile; two-stage TMA pipeline). Warpgroup 0 produces
// (warp 0 issues TMA and stages lse/D rows, warp 1 issues the dQ reduces); warpgroups 1 and 2 are
// consumers, each owning 64 of the keys: they keep dK and dV for those keys in registers and
// take turns on the tensor cores for S^T, dP^T, dV, dK and their part of dQ. Head dims are padded
// to a 64 or 128 tile (TMA zero-fills the extra columns).
#pragma once

#include <cstddef>

namespace stepscope::kernels::flash {

template <int kHeadDim>
struct Sm90BackwardTraits {
  static_assert(kHeadDim == 64 || kHeadDim == 128, "the sm90 backward takes 64 or 128 tiles");
  static constexpr int kBlockN = 128;  // keys per CTA
  // Query rows per pipeline step: 128 for the 64 tile (halves the per-step overhead), 64 for the
  // 128 tile (registers).
  static constexpr int kBlockM = kHeadDim == 64 ? 128 : 64;
  // dQ = dS K: with 128 query rows each consumer computes 64 of them over all columns; with 64
  // rows each computes half of the columns over all rows.
  static constexpr bool kDqSplitRows = kBlockM == 128;
  static constexpr int kDqBoxRows = 64;  // rows of one TMA reduce box
  static constexpr int kStages = 2;      // a third does not fit next to the dQ staging (64 tile)
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kConsumerThreads = 128 * kConsumerWarpgroups;
  static constexpr int kThreads = 128 + kConsumerThreads;
  // setmaxnreg budgets, within the 168 x 384 = 64512 registers the CTA launches with:
  // 128 * 24 + 256 * 240, or for the 64 tile 128 * 32 + 256 * 232 (its producer warp holds
  // 2 x 4 lse/D rows per lane across a wait and spilled at 24; the 128 tile's consumers spill
  // at 232).
  static constexpr int kProducerRegs = kHeadDim == 64 ? 32 : 24;
  static constexpr int kConsumerRegs = kHeadDim == 64 ? 232 : 240;
  // Named barriers (0 is __syncthreads): the consumers' turns (kBarTurn + consumer), per
  // consumer dQ staging full / empty between it and the dQ writer warp, and the epilogue's.
  static constexpr int kBarTurn = 1;
  static constexpr int kBarDqFull = 3;
  static constexpr int kBarDqEmpty = 5;
  static constexpr int kBarEpilogue = 7;  // both consumers, around the dK / dV staging
  static constexpr int kDqHandoffThreads = 128 + 32;

  // Q, dO and V tiles are stored as 64-column blocks with 128-byte swizzle. K is too for the
  // 128 tile; for the 64 tile K uses 32-column blocks with 64-byte swizzle, read MN-major as the
  // B of dQ = dS K with the two blocks lbo apart.
  static constexpr int kKSwizzleBytes = kHeadDim == 64 ? 64 : 128;
  static constexpr int kKBlockCols = kKSwizzleBytes / 2;
  static constexpr int kKBlocks = kHeadDim / kKBlockCols;
  static constexpr int kKBlockBytes = kBlockN * kKSwizzleBytes;
  static constexpr int kVBlockBytes = kBlockN * 128;
  static constexpr int kQBlockBytes = kBlockM * 128;
  static constexpr int kColBlocks = kHeadDim / 64;  // 64-column blocks of Q, dO, V

  static constexpr int kKBytes = kBlockN * kHeadDim * 2;
  static constexpr int kQBytes = kBlockM * kHeadDim * 2;
  static constexpr int kDsBytes = kBlockN * kBlockM * 2;  // dS^T: 128 key rows x kBlockM queries
  static constexpr int kDsBuffers = 2;                     // by step parity
  static constexpr int kDqBytes = kBlockM * kHeadDim * 4;  // fp32 dQ staging, both consumers
  static constexpr int kDqCols = kDqSplitRows ? kHeadDim : kHeadDim / 2;  // dQ columns per consumer

  // Byte offsets from a 1024-aligned base (swizzle atoms repeat every 1024 bytes).
  static constexpr int kOffK = 0;
  static constexpr int kOffV = kOffK + kKBytes;
  static constexpr int kOffQ = kOffV + kKBytes;
  static constexpr int kOffDo = kOffQ + kStages * kQBytes;
  static constexpr int kOffDs = kOffDo + kStages * kQBytes;
  static constexpr int kOffDq = kOffDs + kDsBuffers * kDsBytes;
  static constexpr int kOffLse = kOffDq + kDqBytes;  // kStages x kBlockM floats
  static constexpr int kOffD = kOffLse + kStages * kBlockM * 4;
  static constexpr int kOffBars = kOffD + kStages * kBlockM * 4;  // full[2], empty[2], kv, kv free
  static constexpr int kBarriers = 2 * kStages + 2;
  static constexpr std::size_t kSmemBytes = kOffBars + 8 * kBarriers + 1024;  // + alignment slack
  static_assert(kSmemBytes <= 227 * 1024, "sm90 backward tile exceeds Hopper shared memory");
  // dK and dV staging at a tile's end (flash_backward_sm90_epilogue.cuh), 2 x 128 key rows: in
  // the dS^T buffers where they hold it (the 64 tile: paired tiles load the next tile's K and V
  // meanwhile), else in K and V's rows (the 128 tile, which does not pair).
  static constexpr int kDkDvStageBytes = 2 * kBlockN * kHeadDim * 2;
  static constexpr int kOffDkDvStage = kDsBuffers * kDsBytes >= kDkDvStageBytes ? kOffDs : kOffK;
  static_assert(kOffDkDvStage == kOffDs || (kHeadDim == 128 && kOffV - kOffK == kDkDvStageBytes / 2),
                "dK and dV staged in the dS^T buffers, or in K and V's rows where no tile follows");
};

}  // namespace stepscope::kernels::flash
