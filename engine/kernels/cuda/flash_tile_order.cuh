// Which (batch*head, tile) each CTA of the attention kernels takes, with the grid's head count
// from gridDim. The orders are explained in flash_grid_order.h.
#pragma once

#include "kernels/cuda/flash_grid_order.h"

namespace stepscope::kernels::flash {

// Not inlined: inlined, its divisions went to uniform registers and ptxas scheduled the Hopper
// d64 forward's body differently, 3-9 % slower with the same tile order (H100, 2026-11-24).
static __device__ __noinline__ TileOfBlock forward_tile_of_block(int block, int row_tiles, bool causal,
                                                                 int head_group) {
  return forward_grouped_tile_of_block(block, row_tiles, static_cast<int>(gridDim.x) / row_tiles, causal, head_group);
}

// The same for tile `item` of a grid of bh_count heads (the persistent forward's CTAs take
// several).
static __device__ __noinline__ TileOfBlock forward_tile_of_item(int item, int row_tiles, int bh_count, bool causal,
                                                                int head_group) {
  return forward_grouped_tile_of_block(item, row_tiles, bh_count, causal, head_group);
}

__device__ __forceinline__ TileOfBlock backward_tile_of_block(int block, int key_tiles, int head_group) {
  return grouped_tile_of_block(block, key_tiles, static_cast<int>(gridDim.x) / key_tiles, head_group);
}

}  // namespace stepscope::kernels::flash
