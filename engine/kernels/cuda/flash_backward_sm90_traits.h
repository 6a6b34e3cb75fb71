// Tile shapes and shared-memory plan of the Hopper (sm_90a) flash-attention backward, apart
// from the kernel (flash_backward_sm90.cuh and the loops it includes).
//
// One CTA owns kBlockN = 128 keys of one (batch, head) and walks the query tiles (kBlockM = 128
// rows each for the 64 tile, 64 for the 128 tile; two-stage TMA pipeline). Warpgroup 0 is the producer (one warp issues TMA and
// stages lse/D rows); warpgroups 1 and 2 are consumers, each owning 64 of the keys: they keep
// dK and dV for those keys in registers and compute S^T, dP^T, dV, dK and half of dQ's columns
// with wgmma. Head dims are padded to a 64 or 128 tile (TMA zero-fills the extra columns).
#pragma once

#include <cstddef>

namespace stepscope::kernels::flash {

template <int kHeadDim>
struct Sm90BackwardTraits {
  static_assert(kHeadDim == 64 || kHeadDim == 128, "the sm90 backward takes 64 or 128 tiles");
  static constexpr int kBlockN = 128;  // keys per CTA
#ifndef STEPSCOPE_BWD_M128_D64
#define STEPSCOPE_BWD_M128_D64 1
#endif
  // Query rows per pipeline step: 128 for the 64 tile (halves the per-step overhead), else 64.
  static constexpr int kBlockM = kHeadDim == 64 && STEPSCOPE_BWD_M128_D64 ? 128 : 64;
  // dQ = dS K: with 128 query rows each consumer computes 64 of them over all columns; with 64
  // rows each computes half of the columns over all rows.
  static constexpr bool kDqSplitRows = kBlockM == 128;
  static constexpr int kDqBoxRows = 64;  // rows of one TMA reduce box
#ifndef STEPSCOPE_BWD_STAGES_D64
#define STEPSCOPE_BWD_STAGES_D64 2
#endif
  static constexpr int kStages = kHeadDim == 64 ? STEPSCOPE_BWD_STAGES_D64 : 2;
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kConsumerThreads = 128 * kConsumerWarpgroups;
  static constexpr int kThreads = 128 + kConsumerThreads;
  // setmaxnreg budgets: 128 * 24 + 256 * 240 = 64512 <= 65536 registers per SM.
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;

  // Q, dO and V tiles are stored as 64-column blocks with 128-byte swizzle. K is too for the
  // 128 tile; for the 64 tile K uses 32-column blocks with 64-byte swizzle so that each
  // consumer's half of dQ = dS K (32 columns) reads exactly one swizzle-width block.
  // Overlap: each step issues the previous step's dQ = dS K behind its own S^T / dP^T wgmma,
  // so the tensor cores run dQ while the exponentials are computed. Needs two dS^T buffers and
  // two dQ staging buffers.
  // With d128 the registers do not allow dQ's accumulators to be live during the exponentials
  // (C7512 and spills), so there dQ(it - 1) is issued right behind dV/dK(it) instead ("late"):
  // it still needs no barrier between the two on the tensor cores.
#ifndef STEPSCOPE_BWD_DQ_EARLY_D64
#define STEPSCOPE_BWD_DQ_EARLY_D64 0
#endif
#ifndef STEPSCOPE_BWD_OVERLAP_D128
#define STEPSCOPE_BWD_OVERLAP_D128 0
#endif
  // Ping-pong (flash_backward_sm90_loop_pingpong.inc): the consumers take turns on the tensor
  // cores, one running dV/dK/dQ and the next S^T/dP^T while the other computes exponentials;
  // a warp of the producer warpgroup issues the dQ reduces.
#ifndef STEPSCOPE_BWD_PINGPONG
#define STEPSCOPE_BWD_PINGPONG 1
#endif
  static constexpr bool kPingPong = STEPSCOPE_BWD_PINGPONG;
  static constexpr bool kOverlapDq = !kPingPong && (kHeadDim == 64 || STEPSCOPE_BWD_OVERLAP_D128);
  static constexpr bool kDqEarly = kHeadDim == 64 && kBlockM == 64 && STEPSCOPE_BWD_DQ_EARLY_D64;
  static constexpr int kDsBuffers = kOverlapDq || kPingPong ? 2 : 1;
  static constexpr int kDqBuffers = kOverlapDq && !kDqSplitRows ? 2 : 1;  // 128 rows: no room
  // Named barriers (0 is __syncthreads): the consumers' turns (kBarTurn + consumer), and per
  // consumer dQ staging full / empty between it and the dQ writer warp.
  static constexpr int kBarTurn = 1;
  static constexpr int kBarDqFull = 3;
  static constexpr int kBarDqEmpty = 5;
  static constexpr int kDqHandoffThreads = 128 + 32;

  static constexpr int kKSwizzleBytes = kHeadDim == 64 ? 64 : 128;
  static constexpr int kKBlockCols = kKSwizzleBytes / 2;
  static constexpr int kKBlocks = kHeadDim / kKBlockCols;
  static constexpr int kKBlockBytes = kBlockN * kKSwizzleBytes;
  static constexpr int kVBlockBytes = kBlockN * 128;
  static constexpr int kQBlockBytes = kBlockM * 128;
  static constexpr int kColBlocks = kHeadDim / 64;  // 64-column blocks of Q, dO, V

  static constexpr int kKBytes = kBlockN * kHeadDim * 2;
  static constexpr int kQBytes = kBlockM * kHeadDim * 2;
  static constexpr int kDsBytes = kBlockN * kBlockM * 2;  // dS^T: 128 key rows x 64 queries
  static constexpr int kDqBytes = kBlockM * kHeadDim * 4;  // fp32 dQ staging for the reduce
  static constexpr int kDqCols = kDqSplitRows ? kHeadDim : kHeadDim / 2;  // dQ columns per consumer

  // Byte offsets from a 1024-aligned base (swizzle atoms repeat every 1024 bytes).
  static constexpr int kOffK = 0;
  static constexpr int kOffV = kOffK + kKBytes;
  static constexpr int kOffQ = kOffV + kKBytes;
  static constexpr int kOffDo = kOffQ + kStages * kQBytes;
  static constexpr int kOffDs = kOffDo + kStages * kQBytes;
  static constexpr int kOffDq = kOffDs + kDsBuffers * kDsBytes;
  static constexpr int kOffLse = kOffDq + kDqBuffers * kDqBytes;         // kStages x kBlockM floats
  static constexpr int kOffD = kOffLse + kStages * kBlockM * 4;
  static constexpr int kOffBars = kOffD + kStages * kBlockM * 4;  // full[2], empty[2], kv
  static constexpr int kBarriers = 2 * kStages + 1;
  static constexpr std::size_t kSmemBytes = kOffBars + 8 * kBarriers + 1024;  // + alignment slack
  static_assert(kSmemBytes <= 227 * 1024, "sm90 backward tile exceeds Hopper shared memory");
};

}  // namespace stepscope::kernels::flash
