// The orders in which the flash-attention grids take their (batch*head, tile) pairs: the
// backward's here, the forward's below forward_head_group. Plain C++ (host and device), so the
// CPU tests check it.
//
// Two forces pull apart. Under causal masking a head's first key tiles do the most work (they see
// every query from their diagonal on), so the heaviest tiles must start early or the last ones
// lengthen the run: tile-major over all heads does that. But the running CTAs of a head share its
// Q, dO and fp32 dQ accumulator (seq x d x 8 bytes) in L2, and spread over every head at once
// they miss: at 16 heads of 16384 rows, d 128, tile-major moved 3.6 GB through HBM per backward
// against 0.66 GB one head at a time, and the extra power cost clock speed under the 700 W cap
// (H100, 2026-11-24). One head at a time leaves a tail instead: its heaviest tiles start only
// when the head before is nearly done.
//
// So the grid goes one head at a time where that tail is small against the whole run, else in
// groups of heads whose tiles fill the GPU once, tile-major inside each group: the group keeps
// the running CTAs' data in L2 and puts the heaviest tiles first.
// At 16 heads of 16384 rows (d128) the head-major grid was 2-5 % faster than tile-major
// (simulated tail 0.9 %). With many heads the groups matter most: tile-major over 48-128 heads
// left the backward 3-63 % behind cuDNN's.
// Unmasked tiles are equal: head-major.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <queue>
#include <tuple>
#include <vector>

#if defined(__CUDACC__)
#define STEPSCOPE_HOST_DEVICE __host__ __device__
#else
#define STEPSCOPE_HOST_DEVICE
#endif

namespace stepscope::kernels::flash {

struct TileOfBlock {
  int bh;    // batch * heads + head
  int tile;  // query tile (forward) or key tile (backward)
};

// Block `block` of tiles x bh_count blocks: groups of head_group heads in order, and inside a
// group key tile r of every head before tile r + 1 (the last group may hold fewer heads).
STEPSCOPE_HOST_DEVICE inline TileOfBlock grouped_tile_of_block(int block, int tiles, int bh_count,
                                                               int head_group) {
  const int group_blocks = head_group * tiles;
  const int group = block / group_blocks;
  const int within = block - group * group_blocks;
  const int first_bh = group * head_group;
  const int heads_here = bh_count - first_bh < head_group ? bh_count - first_bh : head_group;
  return {first_bh + within % heads_here, within / heads_here};
}

// The forward's block `block` of row_tiles x bh_count: the grouped order, with each head's
// query tiles last first when causal (the last sees the most keys).
STEPSCOPE_HOST_DEVICE inline TileOfBlock forward_grouped_tile_of_block(int block, int row_tiles, int bh_count,
                                                                       bool causal, int head_group) {
  const TileOfBlock ranked = grouped_tile_of_block(block, row_tiles, bh_count, head_group);
  return causal ? TileOfBlock{ranked.bh, row_tiles - 1 - ranked.tile} : ranked;
}

// How much longer than its lower bound, max(total work / sms, longest tile), a causal grid of
// this order runs when each block goes to the first free SM in grid order (as the hardware
// dispatches them); the block of rank j in its head does tiles - j steps (the backward's key
// tile j, the forward's query tile tiles - 1 - j). Host only.
inline double causal_grid_excess(int tiles, int bh_count, int head_group, int sms) {
  if (tiles < 1 || bh_count < 1 || sms < 1) return 0.0;
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;
  for (int i = 0; i < sms; ++i) free_at.push(0.0);
  double makespan = 0.0;
  for (int block = 0; block < tiles * bh_count; ++block) {
    const double end = free_at.top() + (tiles - grouped_tile_of_block(block, tiles, bh_count, head_group).tile);
    free_at.pop();
    free_at.push(end);
    makespan = end > makespan ? end : makespan;
  }
  const double total = 0.5 * tiles * (tiles + 1.0) * bh_count;
  const double bound = total / sms > tiles ? total / sms : tiles;
  return makespan / bound - 1.0;
}

// A head-major grid whose scheduling excess stays under 2 % is measured to be outweighed by its
// L2 reuse.
constexpr double kHeadGroupExcessLimit = 0.02;
constexpr int kMaxSimulatedBlocks = 1 << 16;

// Heads whose tiles fill the GPU's `slots` (CTAs resident at once) once, at least two (one head
// at a time measured slower in the forward: d64 s16384 16 heads 1.27 against 1.15 ms) and at
// most every head. Such a group keeps each running CTA among a few heads that share their K and V
// (forward) or Q, dO and the fp32 dQ accumulator (backward) in L2, and whatever the sequence
// length its working set is about one wave of tiles: slots x 128 rows x d x (2 inputs + 4) bytes,
// 17 MB at d 128 on 132 SMs, a third of an H100's L2. Tile-major inside the group puts the
// heaviest tiles first, and the next group's heaviest start as this one's light tiles end.
inline int one_wave_head_group(int tiles, int bh_count, int slots) {
  const int wave = tiles > 0 && slots / tiles > 2 ? slots / tiles : 2;
  return wave < bh_count ? wave : bh_count;
}

// Heads per group of the grid (1: head-major; bh_count: tile-major over every head). Unmasked
// tiles are equal: head-major. Causal: head-major where its tail is small (the most reuse; grids
// too large to simulate have short tails), else the one-wave group.
// H100, 2026-11-25, backward ms, one-wave groups against the groups as large as fit in L2 or,
// where those had tails over 2 %, tile-major: 128 heads of 1024 rows d128 0.327 against 0.526
// (tile-major), 128 x 512 d128 0.151 against 0.185, 64 x 2048 d128 0.454 against 0.602,
// 128 x 2048 d64 0.489 against 0.504 (groups of 23); 16 x 4096 and 16 x 8192 d64 level. Groups
// of twice a wave were 1-6 % slower; of half a wave level to 7 % slower (3 % faster once, at
// 128 x 512 d64).
inline int backward_head_group(int key_tiles, int bh_count, int sms, bool causal) {
  if (bh_count < 1 || key_tiles < 1 || !causal) return 1;
  if (static_cast<long long>(key_tiles) * bh_count > kMaxSimulatedBlocks ||
      causal_grid_excess(key_tiles, bh_count, 1, sms) <= kHeadGroupExcessLimit)
    return 1;
  return one_wave_head_group(key_tiles, bh_count, sms);
}

// Causal grids of short rows pair key tiles in the backward: a CTA takes key tile j of a head and
// then its mirror, tiles - 1 - j. Key tile j of a square causal grid walks tiles - j query steps,
// so every pair walks the same number (the middle tile of an odd count walks alone), the grid
// runs head-major with no tail from uneven tiles, and half as many CTAs start and end. With one
// CTA an SM a CTA's start (K and V loaded, the stage pipeline filled) and end (dK, dV stored)
// expose their latency; inside a CTA the next tile's first Q and dO are already loading while
// the last tile's dK and dV are stored. At 256 heads of 512 rows (H100, 2026-11-26, ncu) our
// unpaired kernel took 196.7 us at d128 and 119.4 us at d64 against cuDNN's persistent 164.9 and
// 106.9.
STEPSCOPE_HOST_DEVICE inline int key_tile_pairs(int key_tiles) { return (key_tiles + 1) / 2; }

// Tiles of the paired CTA `block`: 2, or 1 for the middle tile of an odd count.
STEPSCOPE_HOST_DEVICE inline int tiles_of_paired_block(int block, int key_tiles) {
  const int pair = block % key_tile_pairs(key_tiles);
  return pair == key_tiles - 1 - pair ? 1 : 2;
}

// Tile `item` (0: the heavier) of the paired CTA `block`; head-major.
STEPSCOPE_HOST_DEVICE inline TileOfBlock paired_tile_of_block(int block, int item, int key_tiles) {
  const int pairs = key_tile_pairs(key_tiles);
  const int bh = block / pairs;
  const int pair = block - bh * pairs;
  return {bh, item == 0 ? pair : key_tiles - 1 - pair};
}

// Pairs where the rows are short (2 to 8 key tiles: up to 1024 rows) and equal (seq_q = seq_k,
// so the pairs balance), under causal masking, with at least a wave of pairs on the `sms`, for
// the 64 tile (head dims up to 64, 128 query rows a step). H100, 2026-11-26, backward ms against
// unpaired, 3 rounds: d64 256 x 512 0.156 / 0.167, 128 x 512 0.083 / 0.086, 128 x 1024 0.184 /
// 0.187; d128 (64 rows a step) 256 x 512 level, 128 x 512, 128 x 1024 and 64 x 1024 2-2.5 % slower.
constexpr bool backward_pairs_head_dim(int padded_head_dim) { return padded_head_dim <= 64; }

inline bool backward_pairs_key_tiles(int key_tiles, int bh_count, int sms, bool causal, bool square,
                                     int padded_head_dim) {
  return backward_pairs_head_dim(padded_head_dim) && causal && square && key_tiles >= 2 && key_tiles <= 8 &&
         static_cast<long long>(key_tile_pairs(key_tiles)) * bh_count >= sms;
}

// The forward's CTAs of one head read its K and V tiles in the same order from key 0, so those
// running together share each load: one-wave groups, tile-major inside (unmasked: head-major).
// Tile-major over all heads spread the running CTAs over every head, and each K/V tile went from
// HBM to one or two CTAs after another. H100, forward ms, one-wave groups against tile-major
// over every head: 128 x 2048 d64 0.210 against 0.224, 48 x 4096 d128 0.338 against 0.371,
// 16 x 8192 d128 0.416 against 0.431 (2026-11-24); 128 x 1024 d128 0.093 against 0.123 and
// 64 x 2048 d128 0.134 against 0.152, where the group's simulated tail was 3 % (2026-11-25).
inline int forward_head_group(int row_tiles, int bh_count, int slots, bool causal) {
  if (bh_count < 1 || row_tiles < 1 || !causal) return 1;
  return one_wave_head_group(row_tiles, bh_count, slots);
}

// The portable kernels' order (the sm80 tensor-core forward and backward, 3xTF32, fp32 SIMT):
// tile-major when causal, else head-major. They run several CTAs an SM on 64-key or 64-row
// tiles, and groups lost to tile-major on an H100: one-wave groups cost the tensor-core forward
// 4-5 % at d64 (48 x 4096, 16 x 16384; 2026-11-24); in the backwards, tile-major was level
// with the best group or ahead, up to 21 % ahead of the groups fitting in L2 (bf16 16 x 4096 d64
// 0.64 against 0.80 ms, 16 x 16384 d64 8.9 against 9.6; 3xTF32 8 x 4096 d64 1.21 against 1.80;
// fp32 SIMT 16 x 8192 d64 22.2 against 24.9; 2026-11-25).
inline int ungrouped_head_group(int bh_count, bool causal) { return causal ? bh_count : 1; }

// Whether the Hopper forward runs persistent CTAs (one an SM, taking tiles from a counter)
// rather than one CTA a tile, by the padded head dim: where each SM takes several tiles and rows
// are short enough that each CTA's prologue and epilogue are a large share of its work.
// d = 64, H100, 2026-11-25, bf16 causal against one CTA a tile: 128 and 256 heads of 512-2048
// rows 2-22 % faster, 64 heads of 1024-2048 rows level to 3 % faster, 32 x 2048 level to 2 %
// slower; two waves (256 tiles) lost 3-10 % (the counter's reset and the handover cost more
// than the one prologue they hide); 4096 rows and more level to 2.4 % slower.
// d = 128 (two K/V stages and O's own buffer; flash_forward_sm90_persistent.cuh), H100,
// 2026-11-25, against one CTA a tile: 32 x 1024 and 64 x 512 (1.94 waves) 7 % faster, 16 x 2048
// 1 %, 48 x 4096 3 %, 16 x 4096 and 16 x 8192 1 %; 16 x 16384 1 % slower; 1.2-1.5 waves
// (20 and 24 x 1024, 40 x 512) 3-5 % slower, their second wave too thin to hide anything.
constexpr int kPersistentForwardMinWaves = 3;
constexpr int kPersistentForwardMaxRowTiles = 16;
constexpr int kPersistentForwardD128MinTenthsOfWaves = 19;
constexpr int kPersistentForwardD128MaxRowTiles = 64;
inline bool forward_runs_persistent(int row_tiles, long long tiles, int sms, int padded_head_dim) {
  if (padded_head_dim == 128) {
    return 10 * tiles >= static_cast<long long>(kPersistentForwardD128MinTenthsOfWaves) * sms &&
           row_tiles <= kPersistentForwardD128MaxRowTiles;
  }
  return tiles >= static_cast<long long>(kPersistentForwardMinWaves) * sms &&
         row_tiles <= kPersistentForwardMaxRowTiles;
}

enum class GridPass { forward, backward };

// forward_ or backward_head_group once per argument set in a process: the backward's tail
// simulation takes 25 us at 2048 blocks and milliseconds at 65536, which a synchronised pass
// would wait for.
inline int head_group_cached(GridPass pass, int tiles, int bh_count, int slots, bool causal) {
  static std::mutex mutex;
  static std::map<std::tuple<GridPass, int, int, int, bool>, int> groups;
  const auto key = std::make_tuple(pass, tiles, bh_count, slots, causal);
  const std::lock_guard<std::mutex> lock(mutex);
  const auto found = groups.find(key);
  if (found != groups.end()) return found->second;
  return groups[key] = pass == GridPass::forward ? forward_head_group(tiles, bh_count, slots, causal)
                                                 : backward_head_group(tiles, bh_count, slots, causal);
}

}  // namespace stepscope::kernels::flash
