// Tile shapes of the flash-attention kernels, apart from the kernel bodies.
//
// Head dims are padded (with zeros) to the next tile width: 32, 64, 96 or 128. fp16 and bf16
// share one set of tiles (same byte widths, same mma shape). sm_80 and sm_90 also share them:
// the kernels use only sm_80 features (mma.sync m16n8k16, ldmatrix, cp.async), and every tile is
// budgeted to fit sm_80's 163 KB of shared memory per block, which also fits sm_90's 227 KB.
// fp32 takes its own tiles: 3xTF32 tensor-core ones (KernelPath::fastest) and SIMT ones (exact
// fp32 FFMA, KernelPath::portable).
#pragma once

#include <cstddef>
#include <type_traits>

namespace stepscope::kernels::flash {

constexpr int kWarpSize = 32;
constexpr std::size_t kSm80SmemPerBlock = 163 * 1024;
// Shared memory of one Hopper SM, which its CTAs share with 1 KB reserved each.
constexpr std::size_t kSm90SmemPerSm = 228 * 1024;
// CTAs of `smem` bytes of shared memory one Hopper SM holds (an A100 holds the same or fewer).
constexpr int sm90_ctas_by_smem(std::size_t smem) { return static_cast<int>(kSm90SmemPerSm / (smem + 1024)); }

// The head-dim tile a real head dim is padded to.
constexpr int padded_head_dim(int head_dim) {
  return head_dim <= 32 ? 32 : head_dim <= 64 ? 64 : head_dim <= 96 ? 96 : 128;
}

// Tensor-core forward: each warp owns 16 query rows for the whole key loop; K/V tiles are
// double buffered with cp.async. Rows are padded by 8 elements (16 bytes) so ldmatrix's eight
// row addresses fall in different banks.
template <int kHeadDim>
struct MmaForwardTraits {
  static constexpr int kWarps = 8;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kBlockM = 16 * kWarps;  // query rows per CTA
  static constexpr int kBlockN = 64;           // keys per K/V tile
  // With O (kHeadDim/2 floats per thread) and S (32 floats) live, d >= 96 needs more than 128
  // registers, so only one CTA of 256 threads is promised per SM there.
  static constexpr int kMinBlocksPerSm = kHeadDim <= 64 ? 2 : 1;
  static constexpr int kScoreUnrollK = kHeadDim / 16;  // S = Q K^T's k steps, all unrolled
  static constexpr bool kSplitKv = false;  // K/V tiles used as loaded
  static constexpr int kMinSplitKeys = 256;  // shortest key-split chunk (flash_key_splits.h)
  static constexpr int kSmemStride = kHeadDim + 8;  // elements per smem row
  static constexpr int kQElems = kBlockM * kSmemStride;
  static constexpr int kKvElems = kBlockN * kSmemStride;
  static constexpr std::size_t kSmemBytes = 2 * (kQElems + 2 * 2 * kKvElems);  // Q + 2x(K,V)
  static_assert(kHeadDim % 16 == 0 && kBlockN % 16 == 0, "mma tiles are 16 wide");
  static_assert(kSmemBytes <= kSm80SmemPerBlock, "forward tile exceeds sm_80 shared memory");
};

// Tensor-core backward: each CTA owns kBlockN keys (16 per warp), keeps dK/dV in registers,
// and walks the query tiles (kBlockM rows, double buffered). 32 query rows per tile keep S^T
// and dP^T (kBlockM/2 floats each per thread) small next to the 2 x kHeadDim/2 accumulator
// floats; 64 rows hit the 255-register cap and measured slower on H100 even for d = 64.
template <int kHeadDim>
struct MmaBackwardTraits {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kBlockN = 16 * kWarps;  // keys per CTA
  static constexpr int kBlockM = 32;  // query rows per tile
  static constexpr int kScoreUnrollK = kHeadDim / 16;
  static constexpr int kSmemStride = kHeadDim + 8;
  static constexpr int kDsStride = kBlockN + 8;
  // dQ = dS K is split over warps as (kBlockM/16 row groups) x (column splits).
  static constexpr int kDqRowGroups = kBlockM / 16;
  static constexpr int kDqColSplits = kWarps / kDqRowGroups;
  static constexpr int kDqColsPerWarp = kHeadDim / kDqColSplits;
  static constexpr int kDqChunk = kDqColsPerWarp % 32 == 0 ? 32 : 16;  // columns per pass
  static constexpr int kKvElems = kBlockN * kSmemStride;
  static constexpr int kQElems = kBlockM * kSmemStride;
  static constexpr int kDsElems = kBlockM * kDsStride;
  static constexpr int kQStages = 2;  // query tiles double buffered
  // K, V, 2x Q, 2x dO, dS (element type), then 2x lse and 2x D rows (fp32).
  static constexpr std::size_t kSmemBytes =
      2 * (2 * kKvElems + 4 * kQElems + kDsElems) + 4 * (4 * kBlockM);
  static_assert(kWarps % kDqRowGroups == 0, "dQ split must use every warp");
  static_assert(kDqColsPerWarp % kDqChunk == 0 && kDqChunk % 16 == 0, "dQ chunks are 16 wide");
  static_assert(kSmemBytes <= kSm80SmemPerBlock, "backward tile exceeds sm_80 shared memory");
};

// fp32 forward on tensor cores (3xTF32, flash_tf32x3.cuh): the tensor-core forward's scheme with
// 64 query rows per CTA (more CTAs for the short, few-head shapes fp32 is swept at) and fp32
// tiles. Rows are padded by 4 floats (16 bytes), which keeps ldmatrix free of bank conflicts.
//
// With kSplit the CTA splits each K/V tile into its TF32 big and small parts once, instead of
// every warp splitting every operand it loads: the splits were half of the kernel's
// instructions (ncu, H100, h1 s1024 d128). One raw stage is the cp.async target; the split
// pass empties it, so the next tile's copy still overlaps this tile's products. V is split
// transposed, its keys in the order the P operand's registers hold them (flash_tf32x3.cuh), so
// P V's B operand is an ldmatrix too. The parts take more shared memory (one CTA per SM where
// two fit without them), so grids of more CTAs than SMs run without (launch_forward_mma).
template <int kHeadDim, bool kSplit>
struct Tf32ForwardTraits {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kBlockM = 16 * kWarps;
  static constexpr int kBlockN = kHeadDim <= 64 ? 64 : 32;
  static constexpr int kMinBlocksPerSm = 0;
  static constexpr int kScoreUnrollK = kHeadDim / 8;
  static constexpr bool kSplitKv = kSplit;
  // Shortest key-split chunk (flash_key_splits.h). A 3xTF32 step costs about 4 us on an H100 from
  // d64 up (64 rows x 64 keys at d64, x 32 at d128), so two steps, 8192 / d keys, outweigh a
  // chunk's query load, partial O and combine; below d64 the steps are cheap and 256 keys stay.
  static constexpr int kMinSplitKeys = kHeadDim >= 64 ? 8192 / kHeadDim : 256;
  static constexpr int kSmemStride = kHeadDim + 4;
  static constexpr int kVtStride = kBlockN + 4;  // V^T rows: one per head-dim column
  static constexpr int kQElems = kBlockM * kSmemStride;
  static constexpr int kKvElems = kBlockN * kSmemStride;
  static constexpr int kVtElems = kHeadDim * kVtStride;
  // Q, then two K/V stages; or the raw K/V stage, K big and small, V^T big and small.
  static constexpr std::size_t kSmemBytes =
      kSplit ? 4 * (kQElems + 2 * kKvElems + 2 * kKvElems + 2 * kVtElems) : 4 * (kQElems + 2 * 2 * kKvElems);
  static_assert(kHeadDim % 32 == 0, "the padded stride must be 4 floats mod 32 banks");
  static_assert(kSmemBytes <= kSm80SmemPerBlock, "fp32 forward tile exceeds sm_80 shared memory");
};

// fp32 backward on tensor cores (3xTF32): the tensor-core backward's scheme (16 keys per warp,
// 32-row query tiles) with fp32 tiles; dS is kept as (query, key) rows of kBlockN + 4 floats.
template <int kHeadDim>
struct Tf32BackwardTraits {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kBlockN = 16 * kWarps;  // keys per CTA
  static constexpr int kBlockM = 32;           // query rows per tile
  // Four of S^T's and dP^T's k steps unrolled, not all: hoisting every step's operand loads
  // spilled, and d128 measured 6.4 against 11.5 ms (H100).
  static constexpr int kScoreUnrollK = 4;
  static constexpr int kSmemStride = kHeadDim + 4;
  static constexpr int kDsStride = kBlockN + 4;
  static constexpr int kDqRowGroups = kBlockM / 16;
  static constexpr int kDqColsPerWarp = kHeadDim / (kWarps / kDqRowGroups);
  static constexpr int kDqChunk = kDqColsPerWarp % 32 == 0 ? 32 : 16;  // columns per pass
  static constexpr int kKvElems = kBlockN * kSmemStride;
  static constexpr int kQElems = kBlockM * kSmemStride;
  static constexpr int kDsElems = kBlockM * kDsStride;
  // K, V, kQStages x (Q, dO), dS, then kQStages x (lse, D) rows.
  static constexpr std::size_t smem_bytes(int q_stages) {
    return 4 * (2 * kKvElems + 2 * q_stages * kQElems + kDsElems + 2 * q_stages * kBlockM);
  }
  // Query tiles double buffered where two CTAs fit on a Hopper SM; d128 gives up the second
  // buffer for the second CTA (its next tile then loads while dQ is computed). An A100 holds one
  // CTA either way.
  static constexpr int kQStages = sm90_ctas_by_smem(smem_bytes(2)) >= 2 ? 2 : 1;
  static constexpr std::size_t kSmemBytes = smem_bytes(kQStages);
  static_assert(kHeadDim % 32 == 0, "the padded stride must be 4 floats mod 32 banks");
  static_assert(kSmemBytes <= kSm80SmemPerBlock, "fp32 backward tile exceeds sm_80 shared memory");
};

// The tensor-core kernels' tiles for an input type: fp16/bf16 or fp32 (3xTF32).
template <typename T, int kHeadDim, bool kSplit = false>
using TensorCoreForwardTraits =
    std::conditional_t<std::is_same_v<T, float>, Tf32ForwardTraits<kHeadDim, kSplit>, MmaForwardTraits<kHeadDim>>;
template <typename T, int kHeadDim>
using TensorCoreBackwardTraits =
    std::conditional_t<std::is_same_v<T, float>, Tf32BackwardTraits<kHeadDim>, MmaBackwardTraits<kHeadDim>>;

// fp32 SIMT forward: 4 warps x 8 query rows; a lane owns one key of each 32-key tile for the
// scores and head-dim columns lane, lane+32, ... for O. K rows get one float of padding so
// lanes reading K[lane][c] hit distinct banks.
template <int kHeadDim>
struct SimtForwardTraits {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kRowsPerWarp = 8;
  static constexpr int kBlockM = kWarps * kRowsPerWarp;
  static constexpr int kBlockN = kWarpSize;
  static constexpr int kColsPerLane = kHeadDim / kWarpSize;
  static constexpr int kKStride = kHeadDim + 1;
  static constexpr std::size_t kSmemBytes =
      4 * (kBlockM * kHeadDim + kBlockN * kKStride + kBlockN * kHeadDim);
  static_assert(kHeadDim % kWarpSize == 0, "lanes own whole column strides");
  static_assert(kSmemBytes <= kSm80SmemPerBlock, "fp32 forward tile exceeds shared memory");
};

// fp32 SIMT backward: a CTA owns 32 keys (lane = key for S, dP, dK, dV) and walks 32-row query
// tiles; P and dS go through shared memory for the dK/dV and dQ products.
template <int kHeadDim>
struct SimtBackwardTraits {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kBlockN = kWarpSize;  // keys per CTA
  static constexpr int kBlockM = 32;         // query rows per tile
  static constexpr int kRowsPerWarp = kBlockM / kWarps;
  static constexpr int kColsPerThread = kHeadDim / kWarps;  // dK/dV columns warp, warp+4, ...
  static constexpr int kColsPerLane = kHeadDim / kWarpSize;  // dQ columns lane, lane+32, ...
  static constexpr int kKStride = kHeadDim + 1;
  static constexpr int kPStride = kBlockN + 1;
  static constexpr std::size_t kSmemBytes =
      4 * (2 * kBlockN * kKStride + 2 * kBlockM * kHeadDim + 2 * kBlockM * kPStride + 2 * kBlockM);
  static_assert(kHeadDim % kWarpSize == 0, "lanes own whole column strides");
  static_assert(kSmemBytes <= kSm80SmemPerBlock, "fp32 backward tile exceeds shared memory");
};

}  // namespace stepscope::kernels::flash
