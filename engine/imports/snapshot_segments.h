// The segment view of a memory snapshot: per segment (one cudaMalloc, or an expandable
// segment) what the caching allocator reserved against what tensors hold, when the snapshot
// was taken, and the device's totals.
#pragma once

#include <cstdint>
#include <vector>

#include "imports/memory_snapshot.h"

namespace stepscope::imports {

struct SegmentUsage {
  uint64_t address = 0;  // of the segment; 0 in the totals
  int64_t stream = 0;
  SegmentPool pool = SegmentPool::unknown;
  int64_t reserved_bytes = 0;   // total_size: taken from CUDA
  int64_t allocated_bytes = 0;  // allocated_size: in blocks tensors hold
  int64_t active_bytes = 0;     // active_size: allocated, plus freed blocks still in use by other streams
  int64_t requested_bytes = -1; // requested_size: what callers asked for before rounding; -1 not recorded
  int64_t free_bytes = 0;       // reserved - active: cached, free for reuse
  // The largest inactive block: the largest request served without a new cudaMalloc (the
  // allocator only reuses a block of a matching pool, so small and large count apart).
  int64_t largest_free_block_bytes = 0;
  uint64_t blocks = 0;
};

struct SegmentView {
  std::vector<SegmentUsage> segments;  // the device's, by address
  SegmentUsage totals;                 // sums; largest_free_block_bytes is the largest of any segment
  uint64_t segment_count = 0;
};

SegmentView segment_view(const MemorySnapshot& snapshot, int device);

// Fragmentation of free memory: 1 - largest free block / free bytes. 0 when all free memory
// is one block (or none is free), near 1 when it is scattered over many small blocks.
double free_fragmentation(const SegmentUsage& usage);

}  // namespace stepscope::imports
