// The order in which the flash-attention backward grid takes its (batch*head, key tile) pairs.
// Plain C++ (host and device), so the CPU tests check it.
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
// So the grid goes one head at a time when that tail is small against the whole run, and
// tile-major over all heads otherwise. On an H100 the head-major grid was 2-5 % faster at 16 heads
// of 16384 rows (simulated tail 0.9 %) and 5-8 % slower at 8192 rows (12 %); groups of a few
// heads, tile-major inside, were no better than tile-major at either. Unmasked tiles are equal:
// head-major.
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

// How much longer than its lower bound, max(total work / sms, longest tile), a causal backward
// grid of this order runs when each block goes to the first free SM in grid order (as the
// hardware dispatches them); key tile j's work is taken as tiles - j query steps. Host only.
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

// Head-major where its scheduling excess stays under 2 %, measured to be outweighed by the L2
// reuse. Grids larger than kMaxSimulatedBlocks stay tile-major.
constexpr double kHeadMajorExcessLimit = 0.02;
constexpr int kMaxSimulatedBlocks = 1 << 16;

// Heads per group of the grid (1: head-major; bh_count: tile-major over every head).
inline int backward_head_group(int key_tiles, int bh_count, int sms, bool causal) {
  if (bh_count < 1 || !causal) return 1;
  if (static_cast<long long>(key_tiles) * bh_count > kMaxSimulatedBlocks) return bh_count;
  return causal_grid_excess(key_tiles, bh_count, 1, sms) <= kHeadMajorExcessLimit ? 1 : bh_count;
}

// backward_head_group once per (key_tiles, bh_count, sms, causal) in a process: the simulation
// takes 25 us at 2048 blocks and milliseconds at 65536, which a synchronised pass would wait for.
inline int backward_head_group_cached(int key_tiles, int bh_count, int sms, bool causal) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, int, bool>, int> groups;
  const auto key = std::make_tuple(key_tiles, bh_count, sms, causal);
  const std::lock_guard<std::mutex> lock(mutex);
  const auto found = groups.find(key);
  if (found != groups.end()) return found->second;
  return groups[key] = backward_head_group(key_tiles, bh_count, sms, causal);
}

}  // namespace stepscope::kernels::flash
