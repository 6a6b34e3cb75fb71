// Tile shapes and shared-memory plan of the Hopper (sm_90a) flash-attention backward, apart
// from the kernel body (flash_backward_sm90.cuh).
//
// One CTA owns kBlockN = 128 keys of one (batch, head) and walks the query tiles (kBlockM = 64
// rows each, two-stage TMA pipeline). Warpgroup 0 is the producer (one warp issues TMA and
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
  static constexpr int kBlockM = 64;   // query rows per pipeline step
  static constexpr int kStages = 2;
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kConsumerThreads = 128 * kConsumerWarpgroups;
  static constexpr int kThreads = 128 + kConsumerThreads;
  // setmaxnreg budgets: 128 * 24 + 256 * 240 = 64512 <= 65536 registers per SM.
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;

  // Q, dO and V tiles are stored as 64-column blocks with 128-byte swizzle. K is too for the
  // 128 tile; for the 64 tile K uses 32-column blocks with 64-byte swizzle so that each
  // consumer's half of dQ = dS K (32 columns) reads exactly one swizzle-width block.
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
  static constexpr int kDqCols = kHeadDim / 2;             // dQ columns per consumer

  // Byte offsets from a 1024-aligned base (swizzle atoms repeat every 1024 bytes).
  static constexpr int kOffK = 0;
  static constexpr int kOffV = kOffK + kKBytes;
  static constexpr int kOffQ = kOffV + kKBytes;
  static constexpr int kOffDo = kOffQ + kStages * kQBytes;
  static constexpr int kOffDs = kOffDo + kStages * kQBytes;
  static constexpr int kOffDq = kOffDs + kDsBytes;
  static constexpr int kOffLse = kOffDq + kDqBytes;          // kStages x kBlockM floats
  static constexpr int kOffD = kOffLse + kStages * kBlockM * 4;
  static constexpr int kOffBars = kOffD + kStages * kBlockM * 4;  // full[2], empty[2], kv
  static constexpr int kBarriers = 2 * kStages + 1;
  static constexpr std::size_t kSmemBytes = kOffBars + 8 * kBarriers + 1024;  // + alignment slack
  static_assert(kSmemBytes <= 227 * 1024, "sm90 backward tile exceeds Hopper shared memory");
};

}  // namespace stepscope::kernels::flash
