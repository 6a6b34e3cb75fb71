// The forward's key splits: when a grid's longest walk bounds its run, the plan cuts the walks
// into chunks that together cover every key tile once; deep grids and short walks stay whole.
// Expected plans are worked by hand from the tile counts (fp32 d128: 64-row query tiles, 32-key
// tiles, chunks of at least 64 keys; the 16-bit forward: 128-row query tiles, 64-key tiles, chunks
// of at least 256 keys; an H100's 132 SMs with two CTAs each).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cuda/flash_key_splits.h"

namespace stepscope::kernels::flash {
namespace {

constexpr int64_t kH100Slots = 132 * 2;

ForwardTiling tiling(int64_t heads, int64_t seq_q, int64_t seq_k, int block_m, int block_n, bool causal,
                     int min_split_keys = 256) {
  return {{1, heads, seq_q, seq_k, 128, causal}, block_m, block_n, min_split_keys};
}
ForwardTiling fp32_d128(int64_t heads, int64_t seq, bool causal = true) {
  return tiling(heads, seq, seq, 64, 32, causal, 64);
}
ForwardTiling bf16_d128(int64_t heads, int64_t seq) { return tiling(heads, seq, seq, 128, 64, true); }

TEST(FlashKeySplits, CausalTilesWalkUpToTheirLastRow) {
  const ForwardTiling g = tiling(1, 300, 37, 64, 32, true);
  EXPECT_EQ(forward_key_tiles(g, 0), 2);  // keys 0..36 (all of them): two 32-key tiles
  EXPECT_EQ(forward_key_tiles(g, 4), 2);
  const ForwardTiling h = fp32_d128(1, 1024);
  EXPECT_EQ(forward_key_tiles(h, 0), 2);   // keys 0..63
  EXPECT_EQ(forward_key_tiles(h, 15), 32);  // all 1024 keys
  EXPECT_EQ(forward_key_tiles(tiling(1, 1024, 1000, 64, 32, false), 0), 32);  // ceil(1000 / 32)
}

TEST(FlashKeySplits, OneHeadOf16384RowsSplitsIntoSevenChunks) {
  // Tile i walks 2(i+1) key tiles: longest 512, work 2 * 256 * 257 / 2 = 65792, 250 per slot;
  // 4 * 512 > 5 * 250, chunks of (250 + 2) / 3 = 84 tiles, ceil(512 / 84) = 7 of them.
  const KeySplitPlan plan = plan_key_splits(fp32_d128(1, 16384), kH100Slots, 0);
  EXPECT_EQ(plan.splits, 7);
  EXPECT_EQ(plan.tiles_per_split, 84);
}

TEST(FlashKeySplits, SixteenHeadsFillTheSlotsUnsplit) {
  // 16 x 65792 = 1052672 tiles of work, 3988 per slot: far above the longest walk of 512.
  const KeySplitPlan plan = plan_key_splits(fp32_d128(16, 16384), kH100Slots, 0);
  EXPECT_EQ(plan.splits, 1);
}

TEST(FlashKeySplits, ShortGridsTakeChunksOfTheTraitsMinimum) {
  // fp32 s1024: longest 32 tiles, work 272, 2 per slot; chunks of max(2, (2 + 2) / 3) = 2 tiles
  // (64 keys), ceil(32 / 2) = 16 of them.
  const KeySplitPlan plan = plan_key_splits(fp32_d128(1, 1024), kH100Slots, 0);
  EXPECT_EQ(plan.splits, 16);
  EXPECT_EQ(plan.tiles_per_split, 2);
  // fp32 s256: tiles walk 2, 4, 6, 8 key tiles; chunks of 2, 4 of them.
  const KeySplitPlan s256 = plan_key_splits(fp32_d128(1, 256), kH100Slots, 0);
  EXPECT_EQ(s256.splits, 4);
  EXPECT_EQ(s256.tiles_per_split, 2);
  // fp32 s64: the one walk, 2 tiles, is under two minimal chunks.
  EXPECT_EQ(plan_key_splits(fp32_d128(1, 64), kH100Slots, 0).splits, 1);
  // 16-bit s1024: 8 query tiles walking 2, 4, ..., 16 key tiles of 64; chunks of 256 keys (4
  // tiles), 4 of them. s256: the longest walk, 4 tiles, is under two minimal chunks.
  const KeySplitPlan wide = plan_key_splits(bf16_d128(1, 1024), kH100Slots, 0);
  EXPECT_EQ(wide.splits, 4);
  EXPECT_EQ(wide.tiles_per_split, 4);
  EXPECT_EQ(plan_key_splits(bf16_d128(1, 256), kH100Slots, 0).splits, 1);
}

TEST(FlashKeySplits, UnmaskedGridsSplitWhenTheyLeaveSlotsIdle) {
  // 64 query tiles x 64 key tiles of 64 keys: 4096 of work, 16 per slot, longest 64; chunks of
  // max(4, 6) = 6 tiles, ceil(64 / 6) = 11.
  const KeySplitPlan plan = plan_key_splits(tiling(1, 4096, 4096, 64, 64, false), kH100Slots, 0);
  EXPECT_EQ(plan.splits, 11);
  EXPECT_EQ(plan.tiles_per_split, 6);
}

TEST(FlashKeySplits, RequestedCountsOverrideTheChoice) {
  EXPECT_EQ(plan_key_splits(fp32_d128(1, 16384), kH100Slots, 1).splits, 1);
  const KeySplitPlan three = plan_key_splits(fp32_d128(1, 1024), kH100Slots, 3);  // ceil(32 / 3) = 11
  EXPECT_EQ(three.splits, 3);
  EXPECT_EQ(three.tiles_per_split, 11);
  // Even where the choice would not split, and never into more chunks than key tiles.
  EXPECT_EQ(plan_key_splits(fp32_d128(16, 16384), kH100Slots, 5).splits, 5);
  EXPECT_EQ(plan_key_splits(fp32_d128(1, 64), kH100Slots, 7).splits, 2);  // two key tiles, one per chunk
}

TEST(FlashKeySplits, ChunksCoverEveryWalkOnce) {
  for (int64_t seq : {65, 300, 1000, 4097, 20000})
    for (bool causal : {false, true})
      for (int requested : {0, 2, 3, 7, 50}) {
        const ForwardTiling g = fp32_d128(1, seq, causal);
        const KeySplitPlan plan = plan_key_splits(g, kH100Slots, requested);
        if (plan.splits == 1) continue;
        const int64_t row_tiles = (seq + g.block_m - 1) / g.block_m;
        const int64_t longest = forward_key_tiles(g, row_tiles - 1);
        // Chunk y is [y t, (y + 1) t): the last chunk starts inside the longest walk and ends past it.
        EXPECT_LT(static_cast<int64_t>(plan.splits - 1) * plan.tiles_per_split, longest) << seq;
        EXPECT_GE(static_cast<int64_t>(plan.splits) * plan.tiles_per_split, longest) << seq;
        for (int64_t tile = 0; tile < row_tiles; ++tile) {
          const int64_t walked = (forward_key_tiles(g, tile) + plan.tiles_per_split - 1) / plan.tiles_per_split;
          EXPECT_LE(walked, plan.splits);
        }
      }
}

TEST(FlashKeySplits, WorkspaceHoldsEachChunksRowsAlignedAndItsLse) {
  EXPECT_EQ(partial_row_floats(128), 128);
  EXPECT_EQ(partial_row_floats(33), 36);
  EXPECT_EQ(key_split_workspace_floats({7, 84}, 16384, 128), 7 * 16384 * 129);
  EXPECT_EQ(key_split_workspace_floats({3, 11}, 10, 33), 3 * 10 * 37);
  EXPECT_EQ(key_split_workspace_floats({}, 16384, 128), 0);
}

}  // namespace
}  // namespace stepscope::kernels::flash
