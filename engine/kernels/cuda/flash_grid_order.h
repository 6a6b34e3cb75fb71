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
// groups of as many heads as fit in L2, tile-major inside each group, where their tail is small,
// and tile-major over all heads otherwise.
// At 16 heads of 16384 rows (d128: one head fits) the head-major grid was 2-5 % faster than
// tile-major (simulated tail 0.9 %). Group sizes whose tail simulates long lose: groups of 3 at
// 16 x 8192 (16 %) were slower than tile-major, groups of 2 (1 %) faster. With many heads the
// groups matter most: tile-major over 48-128 heads left the backward 3-43 % behind cuDNN's.
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

// Groups whose scheduling excess stays under 2 %, measured to be outweighed by the L2 reuse.
constexpr double kHeadGroupExcessLimit = 0.02;
constexpr int kMaxSimulatedBlocks = 1 << 16;

// Heads whose working set of `bytes_per_head` fits in half the L2 (the other half holds the
// tiles streaming through it), at least one.
inline int heads_in_half_l2(long long bytes_per_head, long long l2_bytes) {
  if (bytes_per_head <= 0) return 1;
  const long long heads = l2_bytes / 2 / bytes_per_head;
  return heads < 1 ? 1 : heads > (1 << 30) ? (1 << 30) : static_cast<int>(heads);
}

// The backward's: Q, dO and the fp32 dQ accumulator (seq_q x d each) of a head; K, V, dK, dV
// and the partial dQ stream through.
inline int backward_heads_in_l2(long long seq_q, long long head_dim, long long input_bytes, long long l2_bytes) {
  return heads_in_half_l2(seq_q * head_dim * (2 * input_bytes + 4), l2_bytes);
}

// Heads per group of the grid (1: head-major; bh_count: tile-major over every head): head-major
// where its tail is small (the most reuse), else the largest group that fits in L2 (heads_in_l2)
// and keeps the scheduling excess under the limit, else tile-major. Grids too large to simulate
// have tails too short to matter: the fitting group.
// H100, 2026-11-24, backward ms: 128 heads of 2048 rows d64 0.81 tile-major, 0.49 in groups of 8;
// 48 x 4096 d128 1.30 against 1.07 (groups of 4); 16 x 8192 d128 1.29 against 1.25 (2).
inline int backward_head_group(int key_tiles, int bh_count, int sms, bool causal, int heads_in_l2) {
  if (bh_count < 1 || key_tiles < 1 || !causal) return 1;
  const int fit = heads_in_l2 < 1 ? 1 : heads_in_l2 < bh_count ? heads_in_l2 : bh_count;
  if (static_cast<long long>(key_tiles) * bh_count > kMaxSimulatedBlocks) return fit;
  if (causal_grid_excess(key_tiles, bh_count, 1, sms) <= kHeadGroupExcessLimit) return 1;
  for (int group = fit; group >= 2; --group)
    if (causal_grid_excess(key_tiles, bh_count, group, sms) <= kHeadGroupExcessLimit) return group;
  return bh_count;
}

// The forward's CTAs of one head read its K and V tiles in the same order from key 0, so those
// running together share each load. Tile-major over every head spreads the running CTAs over
// all heads: at 48-128 heads each K/V tile went from HBM to one or two CTAs after another, and
// the causal forward was 1-21 % behind cuDNN's. Groups of heads whose tiles fill the GPU once
// keep every running CTA among a few heads (and their K and V, 4-9 MB, in L2) with the heaviest
// tiles first. H100, 2026-11-24, forward ms, tile-major against one-wave groups: 128 heads of
// 2048 rows d64 0.224 against 0.210 (8 heads); 48 x 4096 d128 0.371 against 0.338 (4);
// 16 x 8192 d128 0.431 against 0.416 (2). Smaller groups lose (tails), larger ones too (less
// sharing): 48 x 4096 d128 0.357 in groups of 32.
// Heads per group: unmasked, head-major (equal tiles); causal, the one-wave group (at least two:
// one head at a time measured slower, d64 s16384 16 heads 1.27 against 1.15 ms) where its
// simulated excess is under the limit, else tile-major. `slots`: CTAs resident at once.
inline int forward_head_group(int row_tiles, int bh_count, int slots, bool causal) {
  if (bh_count < 1 || row_tiles < 1 || !causal) return 1;
  const int wave = slots / row_tiles > 2 ? slots / row_tiles : 2;
  if (wave >= bh_count) return bh_count;
  if (static_cast<long long>(row_tiles) * bh_count > kMaxSimulatedBlocks) return wave;
  return causal_grid_excess(row_tiles, bh_count, wave, slots) <= kHeadGroupExcessLimit ? wave : bh_count;
}

// The portable forwards' order: tile-major when causal, else head-major. One-wave groups made
// the sm80 tensor-core forward 4-5 % slower on an H100 (48 x 4096 and 16 x 16384, d64) where
// they made the Hopper one 3-9 % faster.
inline int forward_ungrouped_head_group(int bh_count, bool causal) { return causal ? bh_count : 1; }

enum class GridPass { forward, backward };

// forward_ or backward_head_group (the forward ignores heads_in_l2) once per argument set in a
// process: the simulation takes 25 us at 2048 blocks and milliseconds at 65536 for each group
// size tried, which a synchronised pass would wait for.
inline int head_group_cached(GridPass pass, int tiles, int bh_count, int slots, bool causal, int heads_in_l2) {
  static std::mutex mutex;
  static std::map<std::tuple<GridPass, int, int, int, bool, int>, int> groups;
  const auto key = std::make_tuple(pass, tiles, bh_count, slots, causal, heads_in_l2);
  const std::lock_guard<std::mutex> lock(mutex);
  const auto found = groups.find(key);
  if (found != groups.end()) return found->second;
  return groups[key] = pass == GridPass::forward ? forward_head_group(tiles, bh_count, slots, causal)
                                                 : backward_head_group(tiles, bh_count, slots, causal, heads_in_l2);
}

}  // namespace stepscope::kernels::flash
