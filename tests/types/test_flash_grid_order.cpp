// The grids' orders: every (head, tile) once, heads in groups with the heaviest tiles of a group
// first; the Hopper kernels' groups filling the GPU once (the backward head-major where its
// causal tail is small: the tail estimate checked against a list scheduling of the tiles' work,
// blocks dispatched in order to free SMs), the portable kernels' tile-major.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "kernels/cuda/flash_grid_order.h"

namespace stepscope::kernels::flash {
namespace {

TEST(FlashGridOrder, EveryHeadAndTileExactlyOnce) {
  for (int tiles : {1, 3, 8, 64}) {
    for (int heads : {1, 2, 5, 16}) {
      for (int group = 1; group <= heads; ++group) {
        std::set<std::pair<int, int>> seen;
        for (int block = 0; block < tiles * heads; ++block) {
          const TileOfBlock t = grouped_tile_of_block(block, tiles, heads, group);
          ASSERT_GE(t.bh, 0);
          ASSERT_LT(t.bh, heads);
          ASSERT_GE(t.tile, 0);
          ASSERT_LT(t.tile, tiles);
          seen.insert({t.bh, t.tile});
        }
        EXPECT_EQ(seen.size(), static_cast<size_t>(tiles * heads)) << tiles << " tiles, " << heads << " heads, group " << group;
      }
    }
  }
}

TEST(FlashGridOrder, GroupsInOrderAndHeaviestRankFirstInsideEach) {
  const int tiles = 6, heads = 7, group = 3;  // groups {0,1,2} {3,4,5} {6}
  int last_rank = -1, last_group = 0;
  for (int block = 0; block < tiles * heads; ++block) {
    const TileOfBlock t = grouped_tile_of_block(block, tiles, heads, group);
    const int g = t.bh / group;
    ASSERT_GE(g, last_group);
    if (g > last_group) last_rank = -1;
    EXPECT_GE(t.tile, last_rank);  // ranks never go back inside a group
    last_rank = t.tile;
    last_group = g;
  }
  EXPECT_EQ(grouped_tile_of_block(0, tiles, heads, group).bh, 0);
  EXPECT_EQ(grouped_tile_of_block(1, tiles, heads, group).bh, 1);  // rank 0 of the next head
  EXPECT_EQ(grouped_tile_of_block(3, tiles, heads, group).tile, 1);
  EXPECT_EQ(grouped_tile_of_block(tiles * 6, tiles, heads, group).bh, 6);  // the short last group
  EXPECT_EQ(grouped_tile_of_block(tiles * 6 + 1, tiles, heads, group).tile, 1);
}

TEST(FlashGridOrder, OneWaveGroupsFillTheSlotsOnceWithAtLeastTwoHeads) {
  // 132 SMs (H100 SXM), one CTA each, 128-row tiles.
  EXPECT_EQ(one_wave_head_group(32, 48, 132), 4);   // 48 x 4096: 4 x 32 = 128 blocks <= 132 < 5 x 32
  EXPECT_EQ(one_wave_head_group(32, 48, 264), 8);   // two CTAs an SM: twice the heads
  EXPECT_EQ(one_wave_head_group(8, 128, 132), 16);  // 128 x 1024
  EXPECT_EQ(one_wave_head_group(4, 128, 132), 33);  // 128 x 512
  EXPECT_EQ(one_wave_head_group(128, 16, 132), 2);  // a head longer than a wave: two, never one
  EXPECT_EQ(one_wave_head_group(4096, 4, 132), 2);
  EXPECT_EQ(one_wave_head_group(8, 16, 132), 16);   // the wave holds every head: tile-major
  EXPECT_EQ(one_wave_head_group(128, 1, 132), 1);
  // Whatever the length, a group's blocks are about one wave (at most two, for the two-head floor
  // when a head's tiles alone overfill it), so its working set stays near one wave of tiles.
  for (int tiles = 1; tiles <= 1024; tiles *= 2) {
    const int group = one_wave_head_group(tiles, 1 << 20, 132);
    EXPECT_LE(group * tiles, std::max(132, 2 * tiles)) << tiles;
    EXPECT_GT((group + 1) * tiles, 132) << tiles;
  }
}

TEST(FlashGridOrder, BackwardHeadMajorWhereItsTailIsSmallElseOneWaveGroups) {
  // 16 heads of 16384 rows (128 key tiles): head-major's simulated tail is 0.9 %.
  EXPECT_LT(causal_grid_excess(128, 16, 1, 132), 0.02);
  EXPECT_EQ(backward_head_group(128, 16, 132, true), 1);
  EXPECT_EQ(backward_head_group(512, 1, 132, true), 1);
  // 16 x 8192 (64 tiles): head-major's tail is 12 %: groups of two heads (one wave).
  EXPECT_GT(causal_grid_excess(64, 16, 1, 132), 0.02);
  EXPECT_EQ(backward_head_group(64, 16, 132, true), 2);
  // 48 x 4096 (32 tiles): groups of 4.
  EXPECT_GT(causal_grid_excess(32, 48, 1, 132), 0.02);
  EXPECT_EQ(backward_head_group(32, 48, 132, true), 4);
  // 128 x 1024 (8 tiles): groups of 16, although their simulated tail (3 %) is longer than
  // tile-major's: tile-major over 128 heads missed L2 (0.526 against 0.327 ms, d128).
  EXPECT_GT(causal_grid_excess(8, 128, 16, 132), causal_grid_excess(8, 128, 128, 132));
  EXPECT_EQ(backward_head_group(8, 128, 132, true), 16);
  // 32 x 2048 (16 tiles): groups of 8 (0.240 ms against 0.253 tile-major and 0.258 in fours, d128).
  EXPECT_EQ(backward_head_group(16, 32, 132, true), 8);
  // 16 x 1024: every block in the first wave, so no tail in any order: head-major.
  EXPECT_EQ(backward_head_group(8, 16, 132, true), 1);
  // Too large to simulate (131072 blocks): tails are short there, head-major.
  EXPECT_EQ(backward_head_group(4096, 32, 132, true), 1);
  EXPECT_EQ(backward_head_group(64, 16, 132, false), 1);  // unmasked: equal tiles, head-major
  EXPECT_EQ(backward_head_group(0, 16, 132, true), 1);
  EXPECT_EQ(backward_head_group(128, 0, 132, true), 1);
}

TEST(FlashGridOrder, CachedGroupsAreThePassesOwn) {
  for (int tiles : {32, 64, 128}) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      EXPECT_EQ(head_group_cached(GridPass::backward, tiles, 16, 132, true), backward_head_group(tiles, 16, 132, true));
      EXPECT_EQ(head_group_cached(GridPass::forward, tiles, 16, 132, true), forward_head_group(tiles, 16, 132, true));
    }
  }
  // The same arguments, each pass its own group (16 x 128 tiles: the backward head-major, the
  // forward in pairs of heads).
  EXPECT_EQ(head_group_cached(GridPass::backward, 128, 16, 132, true), 1);
  EXPECT_EQ(head_group_cached(GridPass::forward, 128, 16, 132, true), 2);
}

TEST(FlashGridOrder, ForwardOneWaveGroupsWhenCausalAndThePortableKernelsTileMajor) {
  EXPECT_EQ(forward_head_group(32, 48, 132, true), 4);
  EXPECT_EQ(forward_head_group(16, 128, 132, true), 8);
  // One-wave groups whatever their simulated tail (128 x 1024: 3.1 %, tile-major 0.3 %):
  // tile-major over 128 heads read each K/V tile from HBM again (0.123 against 0.093 ms, d128).
  EXPECT_GT(causal_grid_excess(8, 128, 16, 132), 0.02);
  EXPECT_EQ(forward_head_group(8, 128, 132, true), 16);
  EXPECT_EQ(forward_head_group(128, 16, 132, true), 2);  // never one head at a time
  EXPECT_EQ(forward_head_group(4096, 32, 132, true), 2);
  EXPECT_EQ(forward_head_group(32, 48, 132, false), 1);  // unmasked: head-major
  EXPECT_EQ(forward_head_group(0, 48, 132, true), 1);
  EXPECT_EQ(forward_head_group(32, 0, 132, true), 1);
  EXPECT_EQ(ungrouped_head_group(48, true), 48);
  EXPECT_EQ(ungrouped_head_group(48, false), 1);
}

TEST(FlashGridOrder, PersistentForwardAtD64OnlyForShortRowsOfThreeWavesOrMore) {
  EXPECT_TRUE(forward_runs_persistent(8, 8 * 128, 132, 64));     // 128 heads of 1024 rows
  EXPECT_TRUE(forward_runs_persistent(16, 16 * 128, 132, 64));   // 128 x 2048
  EXPECT_TRUE(forward_runs_persistent(4, 4 * 128, 132, 64));     // 128 x 512: 3.9 waves
  EXPECT_FALSE(forward_runs_persistent(32, 32 * 48, 132, 64));   // 48 x 4096: rows too long
  EXPECT_FALSE(forward_runs_persistent(8, 8 * 16, 132, 64));     // 16 x 1024: one wave, nothing to overlap
  EXPECT_FALSE(forward_runs_persistent(8, 8 * 32, 132, 64));     // 32 x 1024: two waves
  EXPECT_FALSE(forward_runs_persistent(1, 395, 132, 64));
  EXPECT_TRUE(forward_runs_persistent(1, 396, 132, 64));
}

TEST(FlashGridOrder, PersistentForwardAtD128FromNearlyTwoWavesOfRowsUpTo8192) {
  EXPECT_TRUE(forward_runs_persistent(8, 8 * 32, 132, 128));     // 32 x 1024: 1.94 waves
  EXPECT_TRUE(forward_runs_persistent(4, 4 * 64, 132, 128));     // 64 x 512
  EXPECT_TRUE(forward_runs_persistent(32, 32 * 48, 132, 128));   // 48 x 4096
  EXPECT_TRUE(forward_runs_persistent(64, 64 * 16, 132, 128));   // 16 x 8192
  EXPECT_FALSE(forward_runs_persistent(128, 128 * 16, 132, 128));  // 16 x 16384: rows too long
  EXPECT_FALSE(forward_runs_persistent(8, 8 * 16, 132, 128));    // 16 x 1024: one wave
  EXPECT_FALSE(forward_runs_persistent(8, 8 * 24, 132, 128));    // 24 x 1024: 1.45 waves
  EXPECT_FALSE(forward_runs_persistent(1, 250, 132, 128));
  EXPECT_TRUE(forward_runs_persistent(1, 251, 132, 128));        // 1.9 waves
}

TEST(FlashGridOrder, ForwardOrderTakesEachHeadsLastQueryTileFirstWhenCausal) {
  const int tiles = 5, heads = 7;
  for (int group = 1; group <= heads; ++group) {
    std::set<std::pair<int, int>> seen;
    for (int block = 0; block < tiles * heads; ++block) {
      const TileOfBlock t = forward_grouped_tile_of_block(block, tiles, heads, true, group);
      const TileOfBlock ranked = grouped_tile_of_block(block, tiles, heads, group);
      EXPECT_EQ(t.bh, ranked.bh);
      EXPECT_EQ(t.tile, tiles - 1 - ranked.tile);
      seen.insert({t.bh, t.tile});
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(tiles * heads));
  }
  // Tile-major over every head: block b is head b % heads, tile tiles - 1 - b / heads.
  for (int block = 0; block < tiles * heads; ++block) {
    const TileOfBlock t = forward_grouped_tile_of_block(block, tiles, heads, true, heads);
    EXPECT_EQ(t.bh, block % heads);
    EXPECT_EQ(t.tile, tiles - 1 - block / heads);
  }
  // Unmasked, head-major: block b is head b / tiles, tile b % tiles.
  for (int block = 0; block < tiles * heads; ++block) {
    const TileOfBlock t = forward_grouped_tile_of_block(block, tiles, heads, false, 1);
    EXPECT_EQ(t.bh, block / tiles);
    EXPECT_EQ(t.tile, block % tiles);
  }
}

TEST(FlashGridOrder, SchedulingExcessAgainstHandWorkedCases) {
  // 2 SMs, 1 head, tiles of work 3, 2, 1: SM0 takes 3, SM1 takes 2 then 1: makespan 3 = bound.
  EXPECT_NEAR(causal_grid_excess(3, 1, 1, 2), 0.0, 1e-12);
  // 2 SMs, 2 heads of tiles 2, 1. Head-major: SM0 2 (head 0), SM1 1 + 2 (head 1's first tile
  // starts at 1), then 1 on SM0 at 2: makespan 3 against bound 3.
  EXPECT_NEAR(causal_grid_excess(2, 2, 1, 2), 0.0, 1e-12);
  // 3 SMs, 2 heads of tiles 3, 2, 1 (total 12, bound 4). Head-major: 3 | 2 | 1 then head 1's 3
  // at time 1 ends at 4, its 2 at 2 ends at 4, its 1 at 3 ends at 4: makespan 4.
  EXPECT_NEAR(causal_grid_excess(3, 2, 1, 3), 0.0, 1e-12);
  // 4 SMs, 1 head of tiles 4, 3, 2, 1 on 4 SMs: bound = the longest tile, 4.
  EXPECT_NEAR(causal_grid_excess(4, 1, 1, 4), 0.0, 1e-12);
  // 2 SMs, 4 heads of tiles (2, 1), tile-major: the four 2s, then the four 1s: makespan 6 =
  // total 12 / 2.
  EXPECT_NEAR(causal_grid_excess(2, 4, 4, 2), 0.0, 1e-12);
  // Head-major, 2 SMs, 3 heads of (2, 1): SM0 2, SM1 1 then head 1's 2 (to 3), SM0 its 1 (to 3),
  // then head 2's 2 and 1 from 3: makespan 5 against the bound 9 / 2.
  EXPECT_NEAR(causal_grid_excess(2, 3, 1, 2), 5.0 / 4.5 - 1, 1e-12);
}

TEST(FlashGridOrder, PairedBackwardTakesEveryKeyTileOnceAndEachPairWalksAlike) {
  for (int tiles : {2, 3, 4, 7, 8}) {
    const int heads = 5;
    std::set<std::pair<int, int>> seen;
    std::set<int> walks;
    for (int block = 0; block < key_tile_pairs(tiles) * heads; ++block) {
      const int items = tiles_of_paired_block(block, tiles);
      int walk = 0;
      for (int item = 0; item < items; ++item) {
        const TileOfBlock t = paired_tile_of_block(block, item, tiles);
        EXPECT_EQ(t.bh, block / key_tile_pairs(tiles));
        EXPECT_TRUE(seen.insert({t.bh, t.tile}).second) << "tiles " << tiles << " block " << block;
        walk += tiles - t.tile;  // query steps of key tile t.tile in a square causal grid
      }
      if (items == 2) walks.insert(walk);
      if (items == 2) EXPECT_GT(tiles - paired_tile_of_block(block, 0, tiles).tile,
                                tiles - paired_tile_of_block(block, 1, tiles).tile) << "the heavier first";
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(tiles * heads));
    EXPECT_EQ(walks, std::set<int>{tiles + 1}) << "tiles " << tiles;  // j and tiles-1-j: tiles + 1 steps
  }
  // 4 key tiles: block 1 of a head holds tiles 1 and 2; 3 key tiles: the middle one alone.
  EXPECT_EQ(paired_tile_of_block(3, 0, 4).bh, 1);
  EXPECT_EQ(paired_tile_of_block(3, 0, 4).tile, 1);
  EXPECT_EQ(paired_tile_of_block(3, 1, 4).tile, 2);
  EXPECT_EQ(tiles_of_paired_block(1, 3), 1);
  EXPECT_EQ(paired_tile_of_block(1, 0, 3).tile, 1);
}

TEST(FlashGridOrder, BackwardPairsOnlyShortSquareCausalGridsOfAWaveOfPairs) {
  EXPECT_TRUE(backward_pairs_key_tiles(4, 256, 132, true, true, 64));     // 256 x 512: 512 pairs
  EXPECT_TRUE(backward_pairs_key_tiles(8, 128, 132, true, true, 64));     // 128 x 1024
  EXPECT_TRUE(backward_pairs_key_tiles(4, 66, 132, true, true, 64));      // exactly a wave of pairs
  EXPECT_FALSE(backward_pairs_key_tiles(4, 65, 132, true, true, 64));     // less than a wave
  EXPECT_FALSE(backward_pairs_key_tiles(4, 256, 132, false, true, 64));   // unmasked tiles are equal
  EXPECT_FALSE(backward_pairs_key_tiles(4, 256, 132, true, false, 64));   // seq_q != seq_k: unbalanced
  EXPECT_FALSE(backward_pairs_key_tiles(1, 4096, 132, true, true, 64));   // nothing to pair
  EXPECT_FALSE(backward_pairs_key_tiles(16, 256, 132, true, true, 64));   // long rows: few CTA edges
  EXPECT_FALSE(backward_pairs_key_tiles(4, 256, 132, true, true, 128));   // the 128 tile: measured no faster
}

}  // namespace
}  // namespace stepscope::kernels::flash
