// How many CTAs share each query tile's walk over the keys in the tensor-core forward. Plain C++,
// so the CPU tests check it.
//
// A forward CTA takes one query tile and walks its keys; under causal masking the last tile walks
// all of them and the first almost none. When the whole grid fits in the GPU's CTA slots at once
// (one head, up to a few thousand rows) the run lasts as long as that longest walk, with most
// slots idle after the short tiles finish: h1 s16384 d128 fp32 took 2.64 ms against SDPA's 2.29
// (H100, 2026-11-24). Splitting each walk into chunks of at most `tiles_per_split` key tiles lets
// the chunks fill the slots; each chunk writes its normalised O and lse, and a second kernel
// combines them by their log-sum-exp weights.
//
// The chunks' scratch is bounded whatever the length: a chunk is at least a third of the work per
// slot, so splits x query tiles stay within about 6 x slots + query tiles, each chunk a query tile's
// rows of fp32 O (about 50 MB at d128 on an H100, beside one fp32 O).
#pragma once

#include "kernels/flash_attention_args.h"

#include <algorithm>
#include <cstdint>

namespace stepscope::kernels::flash {

// A forward grid: the shape cut into query tiles of `block_m` rows and key tiles of `block_n` keys;
// `min_split_keys`, the shortest chunk of a walk worth a CTA of its own (the kernel's traits).
struct ForwardTiling {
  AttentionShape shape;
  int block_m = 64;
  int block_n = 64;
  int min_split_keys = 256;
};

struct KeySplitPlan {
  int splits = 1;           // CTAs per query tile (gridDim.y); 1: no split, no combine
  int tiles_per_split = 0;  // key tiles per CTA when splits > 1
};

// Key tiles query tile `tile` walks: causal tiles see keys up to their last row.
inline int64_t forward_key_tiles(const ForwardTiling& g, int64_t tile) {
  const AttentionShape& s = g.shape;
  const int64_t key_end = s.causal ? std::min(s.seq_k, (tile + 1) * g.block_m) : s.seq_k;
  return (key_end + g.block_n - 1) / g.block_n;
}

// Key tiles of the shortest chunk: each chunk's CTA loads its query tile and writes a fp32 partial
// O, which the chunk's steps must outweigh.
inline int min_tiles_per_split(const ForwardTiling& g) {
  return std::max(1, (g.min_split_keys + g.block_n - 1) / g.block_n);
}

// Splits the walks when the longest one is over 5/4 of the work per CTA slot (the run is bound by
// it, not by the total), into chunks of about a third of the work per slot (and at least
// `min_split_keys`) so list scheduling ends within a third of the ideal. `requested` 1 never
// splits; above 1 asks for that many chunks of the longest walk (the kernel check covers the
// split path with it); 0 chooses.
inline KeySplitPlan plan_key_splits(const ForwardTiling& g, int64_t slots, int requested) {
  const int64_t row_tiles = (g.shape.seq_q + g.block_m - 1) / g.block_m;
  const int64_t bh = g.shape.batch * g.shape.heads;
  if (row_tiles < 1 || bh < 1 || requested == 1) return {};
  int64_t longest = 0, work = 0;
  for (int64_t tile = 0; tile < row_tiles; ++tile) {
    const int64_t tiles = forward_key_tiles(g, tile);
    longest = std::max(longest, tiles);
    work += tiles;
  }
  work *= bh;
  int64_t per_split = 0;
  if (requested > 1) {
    per_split = (longest + requested - 1) / requested;
  } else {
    const int64_t min_tiles = min_tiles_per_split(g);
    const int64_t per_slot = (work + std::max<int64_t>(slots, 1) - 1) / std::max<int64_t>(slots, 1);
    if (4 * longest <= 5 * per_slot || longest < 2 * min_tiles) return {};
    per_split = std::max(min_tiles, (per_slot + 2) / 3);
  }
  constexpr int64_t kMaxSplits = 65535;  // gridDim.y
  per_split = std::max({per_split, int64_t{1}, (longest + kMaxSplits - 1) / kMaxSplits});
  const int64_t splits = (longest + per_split - 1) / per_split;
  if (splits < 2) return {};
  return {static_cast<int>(splits), static_cast<int>(per_split)};
}

// Floats per partial O row: head_dim rounded up to 4, so rows are 16-byte aligned.
inline int64_t partial_row_floats(int64_t head_dim) { return (head_dim + 3) / 4 * 4; }

// fp32 elements of a plan's scratch for `rows` = batch * heads * seq_q query rows: each split's
// normalised O rows, then each split's lse.
inline int64_t key_split_workspace_floats(const KeySplitPlan& plan, int64_t rows, int64_t head_dim) {
  return plan.splits > 1 ? static_cast<int64_t>(plan.splits) * rows * (partial_row_floats(head_dim) + 1) : 0;
}

}  // namespace stepscope::kernels::flash
