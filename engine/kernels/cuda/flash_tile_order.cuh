// Which (batch*head, tile) each CTA of the attention kernels takes.
//
// Under causal masking tiles do unequal work: a forward query tile sees the keys up to its
// diagonal (the last tiles see the most), a backward key tile the queries from its diagonal on
// (the first tiles see the most). Such grids are tile-major with the heaviest tile of every head
// first, so all the longest CTAs start in the first wave and short ones fill the tail (longest
// processing time first). A head-major grid starts the last head's heaviest tile only after
// every other head's tiles: at 16 heads and 64 tiles a head that tail is about a sixth of the run.
// Unmasked forward tiles do equal work and stay head-major, so CTAs running together share one
// head's K and V in L2.
#pragma once

namespace stepscope::kernels::flash {

struct TileOfBlock {
  int bh;    // batch * heads + head
  int tile;  // query tile (forward) or key tile (backward)
};

__device__ __forceinline__ TileOfBlock forward_tile_of_block(int block, int row_tiles, bool causal) {
  if (!causal) return {block / row_tiles, block % row_tiles};
  const int bh_count = static_cast<int>(gridDim.x) / row_tiles;
  return {block % bh_count, row_tiles - 1 - block / bh_count};
}

__device__ __forceinline__ TileOfBlock backward_tile_of_block(int block, int key_tiles) {
  const int bh_count = static_cast<int>(gridDim.x) / key_tiles;
  return {block % bh_count, block / bh_count};
}

}  // namespace stepscope::kernels::flash
