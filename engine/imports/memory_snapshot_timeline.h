// What a user needs from a memory snapshot, for one device: memory_viz's "Active Memory
// Timeline" (its peak to the byte), the largest allocations alive at the peak with their
// frames, categories where the frames allow (imports/snapshot_frames.h), the segment view
// (imports/snapshot_segments.h), and the same timeline as a profiling::AllocationLog, so that
// profiling::build_memory_timeline and every view and exporter of ours draw it unchanged.
//
// The replay, as memory_viz's process_alloc_data does it (torch/utils/viz/MemoryViz.js):
// - an allocation starts at its "alloc" entry and ends at its "free_completed" entry: the block
//   is reusable only then (a "free_requested" is followed by its "free_completed" at once,
//   unless the block waits for other streams; memory_viz folds such a pair into one "free"
//   and counts that, in the same place, so "free_completed" is what it counts);
// - alive before recording began, so alive from the start: a freed block whose alloc is not in
//   the trace (at the free entry's size), and every "active_allocated" block in the device's
//   segments that no alloc still alive at the end of the trace holds (at its requested_size);
// - the peak is the highest total after an action, first reached; the level before the first
//   action is not a point (when the trace has no action at all, memory_viz draws one block
//   alive before recording as the only action: the peak is then their total);
// - an alloc at an address already allocated (its free lost) leaves the old allocation alive
//   to the end, as memory_viz does; the AllocationLog's builder ends it instead (implicit
//   free). A complete PyTorch trace has no such pair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "imports/memory_snapshot.h"
#include "imports/snapshot_segments.h"
#include "profiling/memory_events.h"
#include "profiling/memory_timeline.h"

namespace stepscope::imports {

struct SnapshotAllocation {
  uint64_t address = 0;
  int64_t bytes = 0;
  // Its alloc entry's frames; for one alive before recording, its block's frames (none in
  // 2.x) or, when only its free is in the trace, the free's frames.
  uint32_t stack = 0;
  int64_t alloc_entry = -1;  // index into the device's trace; -1 alive before recording began
  int64_t free_entry = -1;   // its free_completed; -1 still alive when the snapshot was taken
  profiling::MemoryCategory category = profiling::MemoryCategory::other;
};

struct SnapshotTimeline {
  int device = 0;
  // memory_viz's elements: allocations in trace order (an alloc, or a free without one), then
  // the blocks alive before recording found in the segments.
  std::vector<SnapshotAllocation> allocations;
  uint64_t alloc_entries = 0;           // "alloc" entries in the device's trace
  uint64_t free_completed_entries = 0;  // "free_completed" entries
  int64_t before_recording_bytes = 0;   // alive before recording began
  uint64_t before_recording_allocations = 0;
  int64_t peak_bytes = 0;
  int64_t peak_entry = -1;      // trace entry whose action first reached the peak; -1 none did
  int64_t peak_time_us = -1;    // its time_us; -1 not recorded
  int64_t final_bytes = 0;      // alive when the snapshot was taken
  std::vector<uint32_t> largest_at_peak;  // into allocations: bytes descending, then address
  profiling::CategoryBytes peak_bytes_by_category{};  // `other` is what frames do not tell
  uint64_t categorised_allocations = 0;  // allocations given a category other than `other`
  SegmentView segments;
};

// The timeline of `device` (an index into device_traces; the segments with that device).
SnapshotTimeline build_snapshot_timeline(const MemorySnapshot& snapshot, int device, size_t largest_count = 20);

// The devices a snapshot has memory or a trace on, ascending.
std::vector<int> snapshot_devices(const MemorySnapshot& snapshot);

// The timeline (built from this snapshot) as our allocation log, for build_memory_timeline
// (TimelineOptions::device the timeline's device, or none):
// - one event per action, in trace order: alloc +bytes, free_completed -bytes; time_ns is
//   time_us x 1000, raised by 1 ns where needed to be strictly increasing (entries share a
//   microsecond, and the builder orders by time), or the entry's index when the trace has no
//   times (before 2.1);
// - reserved_bytes after each event: the segments' total when the snapshot was taken, less
//   the segment_alloc/map and plus the segment_free/unmap entries after it;
// - the allocations alive before recording as one MemoryBaseline at the first event's time
//   (a free without an alloc then comes out of it, rule 2 of memory_timeline.h), not as
//   allocations: the builder makes no point for the baseline itself, exactly as memory_viz
//   counts no level before the first action, so both peaks are the same number;
// - one AllocationLabel per categorised allocation, at its alloc;
// - with `frames_as_phase`, each event's phase is its allocation's first frame, the user's own
//   first, by file name ("train.py:41 in step", snapshot_frames.h; "" without frames), so that
//   the timeline's largest allocations are grouped and named by where they were made.
profiling::AllocationLog to_allocation_log(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline,
                                           bool frames_as_phase = false);

// "/home/me/train.py:41 in step": the first frame of `stack`, the user's own first; "" when it
// has none. Without `full_path`, the file's name alone: "train.py:41 in step".
std::string first_frame_text(const MemorySnapshot& snapshot, uint32_t stack, bool full_path = true);

}  // namespace stepscope::imports
