// The backward grid's order: every (head, tile) once, heads in groups with the heaviest tiles of
// a group first, and head-major only where its causal tail is small (the tail estimate checked
// against a list scheduling of the tiles' work, blocks dispatched in order to free SMs).
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

TEST(FlashGridOrder, HeadMajorOnlyWhereItsTailIsSmall) {
  // 132 SMs (H100 SXM), 16 heads of 128-key tiles: seq 16384 (128 tiles) head-major, 8192 not.
  EXPECT_EQ(backward_head_group(128, 16, 132, true), 1);
  EXPECT_EQ(backward_head_group(64, 16, 132, true), 16);
  EXPECT_EQ(backward_head_group(256, 16, 132, true), 1);
  EXPECT_EQ(backward_head_group(512, 1, 132, true), 1);
  EXPECT_EQ(backward_head_group(8, 64, 132, true), 64);
  EXPECT_EQ(backward_head_group(64, 16, 132, false), 1);  // unmasked: equal tiles
  EXPECT_EQ(backward_head_group(0, 16, 132, true), 1);
  EXPECT_EQ(backward_head_group(128, 0, 132, true), 1);
  EXPECT_EQ(backward_head_group(4096, 32, 132, true), 32);  // too large to simulate: tile-major
  for (int tiles : {64, 128}) {
    EXPECT_EQ(backward_head_group_cached(tiles, 16, 132, true), backward_head_group(tiles, 16, 132, true));
    EXPECT_EQ(backward_head_group_cached(tiles, 16, 132, true), backward_head_group(tiles, 16, 132, true));
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
