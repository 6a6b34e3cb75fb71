// Tile shapes of the Hopper (sm_90a) FlashAttention forward, apart from the kernel body.
//
// One CTA per (128 query rows, batch*head): warpgroup 0 is the TMA producer (one thread issues
// every copy, its registers cut to kProducerRegs), warpgroups 1 and 2 are consumers owning 64
// query rows each (registers raised to kConsumerRegs). Q, K, V tiles are 128-byte swizzled
// panels of 64 head-dim columns (the widest box TMA swizzles); head dims are padded with TMA's
// zero fill to 64 (d <= 64) or 128 (d <= 128).
#pragma once

#include <cstddef>

namespace stepscope::kernels::flash {

constexpr std::size_t kSm90SmemPerBlock = 227 * 1024;

// The head-dim tile the Hopper forward pads a head dim to (64 or 128).
constexpr int sm90_padded_head_dim(int head_dim) { return head_dim <= 64 ? 64 : 128; }

// K/V pipeline depth of the one-tile kernel: as many stages as shared memory holds (d = 64 tiles
// are half the size). The persistent kernel may trade one for a buffer of its own.
constexpr int sm90_forward_default_stages(int head_dim) { return head_dim == 64 ? 4 : 3; }

template <int kHeadDim, int kStageCount = sm90_forward_default_stages(kHeadDim)>
struct Sm90ForwardTraits {
  static_assert(kHeadDim == 64 || kHeadDim == 128, "the Hopper forward tiles d = 64 or 128");
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kThreads = 128 * (1 + kConsumerWarpgroups);
  static constexpr int kBlockM = 64 * kConsumerWarpgroups;  // query rows per CTA
  // Keys per K/V tile. Building with STEPSCOPE_SM90_FORWARD_D64_BLOCK_N=192 widens d = 64's
  // tiles (fewer per-tile overheads): measured +1.6% at s = 16384 but -12% at s = 1024 on an
  // H100, so 128 stays the default (docs/kernels/hopper-forward.md).
#ifdef STEPSCOPE_SM90_FORWARD_D64_BLOCK_N
  static constexpr int kBlockN = kHeadDim == 64 ? STEPSCOPE_SM90_FORWARD_D64_BLOCK_N : 128;
#else
  static constexpr int kBlockN = 128;
#endif
  static constexpr int kStages = kStageCount;
  // Ping-pong: the consumer warpgroups take turns issuing their GEMMs (named barriers), so one
  // warpgroup's softmax runs while the other's GEMMs keep the tensor cores busy (+9 to +14%
  // on an H100; STEPSCOPE_SM90_FORWARD_PINGPONG=false turns it off for comparisons).
#ifdef STEPSCOPE_SM90_FORWARD_PINGPONG
  static constexpr bool kPingpong = STEPSCOPE_SM90_FORWARD_PINGPONG;
#else
  static constexpr bool kPingpong = true;
#endif
  static constexpr int kPanelCols = 64;  // 16-bit elements per 128-byte swizzled row
  static constexpr int kPanels = kHeadDim / kPanelCols;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;

  static constexpr std::size_t kRowBytes = 128;  // one panel row
  static constexpr std::size_t kQPanelBytes = kBlockM * kRowBytes;
  static constexpr std::size_t kKvPanelBytes = kBlockN * kRowBytes;
  static constexpr std::size_t kQBytes = kPanels * kQPanelBytes;
  static constexpr std::size_t kKvTileBytes = kPanels * kKvPanelBytes;  // one K or V tile
  // Barriers: Q full, then per stage K full, V full, K empty, V empty.
  static constexpr int kBarriers = 1 + 4 * kStages;
  static constexpr std::size_t kBarrierBytes = 8 * kBarriers;
  // Buffers are 1024-byte aligned (the swizzle atom); the slack lets the kernel round up the
  // dynamic shared memory base.
  static constexpr std::size_t kAlignSlack = 1024;
  static constexpr std::size_t kSmemBytes =
      kAlignSlack + kQBytes + 2 * kStages * kKvTileBytes + kBarrierBytes;

  static_assert(kQPanelBytes % 1024 == 0 && kKvPanelBytes % 1024 == 0, "panels hold whole atoms");
  static_assert(kSmemBytes <= kSm90SmemPerBlock, "Hopper forward tile exceeds 227 KB");
  static_assert(!kPingpong || kConsumerWarpgroups == 2, "ping-pong pairs two warpgroups");
  static_assert(kBlockN <= 256 && kBlockM <= 256, "TMA boxes are at most 256 rows");
  // Registers: 128 producer threads at kProducerRegs plus 256 consumers at kConsumerRegs must
  // fit the SM's 64K (one CTA per SM).
  static_assert(128 * kProducerRegs + 128 * kConsumerWarpgroups * kConsumerRegs <= 65536,
                "register split exceeds the register file");
};

}  // namespace stepscope::kernels::flash
