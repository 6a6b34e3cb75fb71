// The grids' orders: every (head, tile) once, heads in groups with the heaviest tiles of a group
// first; the backward's groups as large as fit in L2, the forward's filling the GPU once, where
// their causal tail is small (the tail estimate checked against a list scheduling of the tiles'
// work, blocks dispatched in order to free SMs).
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

TEST(FlashGridOrder, HeadsInL2CountQDoAndTheFp32Accumulator) {
  constexpr long long kL2 = 50LL << 20;  // H100
  // bf16 s16384 d128: 16384 x 128 x (2 + 2 + 4) = 16 MiB a head; half the L2 (25 MiB) holds one.
  EXPECT_EQ(backward_heads_in_l2(16384, 128, 2, kL2), 1);
  EXPECT_EQ(backward_heads_in_l2(4096, 64, 2, kL2), 12);   // 2 MiB a head
  EXPECT_EQ(backward_heads_in_l2(4096, 64, 4, kL2), 8);    // fp32 inputs: 3 MiB a head
  EXPECT_EQ(backward_heads_in_l2(65536, 256, 2, kL2), 1);  // larger than the L2: still one
  EXPECT_EQ(backward_heads_in_l2(0, 64, 2, kL2), 1);
}

TEST(FlashGridOrder, HeadMajorElseTheLargestFittingGroupWhoseTailIsSmall) {
  // 132 SMs (H100 SXM), 128-key tiles.
  // 16 heads of 16384 rows: head-major (tail 0.9 %), however many heads fit.
  EXPECT_EQ(backward_head_group(128, 16, 132, true, 1), 1);
  EXPECT_EQ(backward_head_group(128, 16, 132, true, 3), 1);
  // 16 x 8192, three fitting: groups of 3 leave a 16 % tail, groups of 2 about 1 %.
  EXPECT_GT(causal_grid_excess(64, 16, 3, 132), 0.1);
  EXPECT_LT(causal_grid_excess(64, 16, 2, 132), 0.02);
  EXPECT_EQ(backward_head_group(64, 16, 132, true, 3), 2);
  // 48 x 4096 d128, six fitting: 6 and 5 leave tails over 2 %, 4 none (48 x 32 tiles in groups of 4
  // make 12 groups of 128 blocks, about one wave each).
  EXPECT_GT(causal_grid_excess(32, 48, 6, 132), 0.02);
  EXPECT_EQ(backward_head_group(32, 48, 132, true, 6), 4);
  // Every head fits: the group is all of them (tile-major) where its tail is small.
  EXPECT_EQ(backward_head_group(16, 16, 132, true, 50), 16);
  // No fitting group has a small tail (16 heads of 4096 rows, 3 fitting: tails of 31, 23 and
  // 28 %): tile-major.
  EXPECT_GT(causal_grid_excess(32, 16, 2, 132), 0.2);
  EXPECT_EQ(backward_head_group(32, 16, 132, true, 3), 16);
  EXPECT_EQ(backward_head_group(512, 1, 132, true, 1), 1);
  EXPECT_EQ(backward_head_group(64, 16, 132, false, 3), 1);  // unmasked: equal tiles, head-major
  EXPECT_EQ(backward_head_group(0, 16, 132, true, 3), 1);
  EXPECT_EQ(backward_head_group(128, 0, 132, true, 3), 1);
  // Too large to simulate (131072 blocks): tails are short there, the fitting group.
  EXPECT_EQ(backward_head_group(4096, 32, 132, true, 2), 2);
}

TEST(FlashGridOrder, CachedGroupsAreThePassesOwn) {
  for (int tiles : {32, 64, 128}) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      EXPECT_EQ(head_group_cached(GridPass::backward, tiles, 48, 132, true, 3), backward_head_group(tiles, 48, 132, true, 3));
      EXPECT_EQ(head_group_cached(GridPass::forward, tiles, 48, 132, true, 3), forward_head_group(tiles, 48, 132, true));
    }
  }
  // The same arguments, each pass its own group (48 x 32 tiles, one head in L2: the backward's
  // head-major tail is 9 %, so tile-major; the forward's one-wave groups of 4).
  EXPECT_GT(causal_grid_excess(32, 48, 1, 132), 0.02);
  EXPECT_EQ(head_group_cached(GridPass::backward, 32, 48, 132, true, 1), 48);
  EXPECT_EQ(head_group_cached(GridPass::forward, 32, 48, 132, true, 1), 4);
}

TEST(FlashGridOrder, ForwardGroupsFillTheGpuOnceWhereTheirTailIsSmall) {
  // 132 SMs, one CTA each, 128-row query tiles.
  // 48 heads of 4096 rows (32 tiles): 4 heads make 128 blocks, one wave; no tail.
  EXPECT_EQ(forward_head_group(32, 48, 132, true), 4);
  EXPECT_LE(4 * 32, 132);
  EXPECT_GT(5 * 32, 132);
  // Two CTAs an SM: twice the heads.
  EXPECT_EQ(forward_head_group(32, 48, 264, true), 8);
  // 128 heads of 2048 rows (16 tiles): 8 heads, tail 1.6 %.
  EXPECT_EQ(forward_head_group(16, 128, 132, true), 8);
  // A head longer than a wave (16 x 16384, 128 tiles): two heads, never one.
  EXPECT_EQ(forward_head_group(128, 16, 132, true), 2);
  EXPECT_EQ(forward_head_group(1024, 4, 132, true), 2);
  // The wave holds every head: tile-major (16 heads of 1024 rows, 8 tiles).
  EXPECT_EQ(forward_head_group(8, 16, 132, true), 16);
  EXPECT_EQ(forward_head_group(128, 2, 132, true), 2);
  // One-wave groups with a long tail (128 x 1024: 16 heads of 8 tiles, 3.1 %): tile-major.
  EXPECT_GT(causal_grid_excess(8, 128, 16, 132), 0.02);
  EXPECT_EQ(forward_head_group(8, 128, 132, true), 128);
  // Too large to simulate (131072 blocks): the wave's group.
  EXPECT_EQ(forward_head_group(4096, 32, 132, true), 2);
  EXPECT_EQ(forward_head_group(32, 48, 132, false), 1);  // unmasked: head-major
  EXPECT_EQ(forward_head_group(0, 48, 132, true), 1);
  EXPECT_EQ(forward_head_group(32, 0, 132, true), 1);
  // The portable forwards' order.
  EXPECT_EQ(forward_ungrouped_head_group(48, true), 48);
  EXPECT_EQ(forward_ungrouped_head_group(48, false), 1);
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

}  // namespace
}  // namespace stepscope::kernels::flash
