// ZeRO-1's side of gradient synchronisation: instead of all-reducing each communication unit
// (a parameter, the flat buffer, a bucket), the DDP variants reduce-scatter it, padded to a
// multiple of the ranks, and each rank keeps the mean gradient of its even share of the unit.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace stepscope::distributed {

enum class GradientReduction {
  all_reduce,      // every rank gets every mean gradient (plain DDP)
  reduce_scatter,  // every rank gets the mean of its shard of each unit (ZeRO-1)
};

// Parameter `parameter`'s flattened elements at `unit_offset` of a unit (whole parameters).
struct UnitPiece {
  size_t parameter = 0;
  int64_t unit_offset = 0;
  int64_t numel = 0;
};

// A unit as the gradient sync reduces it: whole parameters at offsets of one flat buffer of
// `numel` elements (padded to a multiple of the ranks when it reduce-scatters).
struct GradientUnit {
  std::vector<UnitPiece> pieces;  // in unit order
  int64_t numel = 0;
};

struct GradientShard {
  size_t unit = 0;                // the unit's first parameter: stable across steps
  std::vector<UnitPiece> pieces;  // in unit order
  int64_t unit_numel = 0;         // padded to a multiple of the ranks
  int64_t shard_offset = 0;       // this rank's share: [shard_offset, shard_offset + shard_numel)
  int64_t shard_numel = 0;
  at::Tensor gradient;            // [shard_numel]: the ranks' mean over this rank's share
};

// `numel` rounded up to a multiple of `ranks`.
inline int64_t padded_numel(int64_t numel, int ranks) { return (numel + ranks - 1) / ranks * ranks; }

}  // namespace stepscope::distributed
