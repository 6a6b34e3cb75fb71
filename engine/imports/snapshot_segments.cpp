#include "imports/snapshot_segments.h"

#include <algorithm>

namespace stepscope::imports {

SegmentView segment_view(const MemorySnapshot& snapshot, int device) {
  SegmentView view;
  SegmentUsage& total = view.totals;
  bool requested_known = true;
  for (const SnapshotSegment& s : snapshot.segments) {
    if (s.device != device) continue;
    SegmentUsage u;
    u.address = s.address;
    u.stream = s.stream;
    u.pool = s.pool;
    u.reserved_bytes = s.total_size;
    u.allocated_bytes = s.allocated_size;
    u.active_bytes = s.active_size;
    u.requested_bytes = s.requested_size;
    u.free_bytes = std::max<int64_t>(0, s.total_size - s.active_size);
    u.blocks = s.blocks.size();
    for (const SnapshotBlock& b : s.blocks) {
      if (b.state == BlockState::inactive) u.largest_free_block_bytes = std::max(u.largest_free_block_bytes, b.size);
    }
    view.segments.push_back(u);

    total.reserved_bytes += u.reserved_bytes;
    total.allocated_bytes += u.allocated_bytes;
    total.active_bytes += u.active_bytes;
    total.free_bytes += u.free_bytes;
    total.blocks += u.blocks;
    total.largest_free_block_bytes = std::max(total.largest_free_block_bytes, u.largest_free_block_bytes);
    if (u.requested_bytes < 0) requested_known = false;
    total.requested_bytes = requested_known ? std::max<int64_t>(total.requested_bytes, 0) + u.requested_bytes : -1;
  }
  std::sort(view.segments.begin(), view.segments.end(),
            [](const SegmentUsage& a, const SegmentUsage& b) { return a.address < b.address; });
  view.segment_count = view.segments.size();
  return view;
}

double free_fragmentation(const SegmentUsage& usage) {
  if (usage.free_bytes <= 0) return 0.0;
  return 1.0 - static_cast<double>(usage.largest_free_block_bytes) / static_cast<double>(usage.free_bytes);
}

}  // namespace stepscope::imports
