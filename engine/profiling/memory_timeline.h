// The active-memory timeline of an AllocationLog: bytes live per category after every
// allocator event, phase bands, peaks per phase and the largest allocations. Plain data for
// exporters and views; no LibTorch.
//
// Rules, as implemented:
// 1. Order. Events, phase marks and labels are each stable-sorted by time and merged; at
//    equal times a mark comes first, then events, then labels (a mark at t starts the phase
//    of events at t; a label at t sees the allocations made at t).
//    Marks are the only source of steps and phases for the rules below; an event's own
//    `step`/`warmup` are not used, its `phase` (innermost range) only groups allocations.
// 2. Blocks. An allocation (bytes > 0) at an address starts a live block there; one at an
//    address already live first ends the old block (its free was lost). A free (bytes < 0)
//    ends the block live at its address and removes that block's own size. A free of an
//    address not live (allocated before recording began) is counted in unknown_frees /
//    unknown_freed_bytes, and comes out of the baseline while any is left. The baseline is
//    what the log's baselines say the device(s) had allocated when recording began; it
//    counts as other from the start. Events of 0 bytes change nothing but still make a point.
// 3. Categories, resolved after the whole log is read, then applied to the block's whole
//    life (so a gradient labelled after backward counts as gradient from its allocation):
//    - its label: the last AllocationLabel naming the block's address while it was live
//      (labels for an address not live are counted in unmatched_labels and ignored);
//    - else other, when still live at the end of the step it was allocated in (the mark that
//      ends it: its "step end", the next "forward", or a mark of another step): caches and
//      workspaces that outlive the step are not the step's activations or temporaries;
//    - else activation: allocated after step s's "forward" mark and before the next
//      "backward"/"optimizer step"/"step end" mark or mark of another step, and still live at
//      step s's "backward" mark;
//    - else temporary: allocated from step s's "forward" mark up to its "step end" mark (or a
//      mark of another step);
//    - else other.
//    A step is (step, warmup) from the marks, so warm-up and measured numbering may overlap.
// 4. Points: one per event considered, in processing order; bytes per category = sum of the
//    live blocks of that category; allocated_bytes = their total.
// 5. Bands: one per mark, from it to the next mark; the last ends at the later of its own
//    time and the last event's time.
// 6. Peaks, in this order, each omitted when it does not exist; the highest point is the
//    first one reaching the maximum; "measured" = warmup false, or any step if
//    include_warmup:
//    "after model initialisation"  the last point before the first mark (none: omitted);
//    "forward", "backward"         highest point in a measured step's forward/backward band;
//    "before optimizer step"       the last point before the first measured "optimizer step"
//                                  mark;
//    "optimizer step"              highest point in a measured step's optimizer band (its
//                                  temporaries); only where a "before optimizer step" exists;
//    "after optimizer step"        the last point before that step's "step end" mark;
//    "overall"                     highest point of the whole log (warm-up included).
// 7. Largest allocations: allocation events grouped by (bytes, category of their block, the
//    event's phase); those in warm-up bands left out unless include_warmup; sorted by bytes,
//    then count, descending, then category and phase; the first largest_count kept.
// 8. Highest per category: the most live bytes each category reached at any point. Beside it,
//    the same count with every labelled block taken at its tensor's own size where its label
//    gave one: the difference is the allocator's rounding, not memory the tensors use (the
//    CUDA caching allocator rounds requests up to 512 bytes, and in its pool of blocks over
//    1 MiB keeps a remainder of 1 MiB or less in the block instead of splitting it off: a
//    25 MiB weight in a fresh segment, rounded to 26 MiB, holds all 26).
// Costs: O(n) in the events, O(n log n) when they arrive out of order; about 110 bytes per
// event while building, 88 of them per point kept.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/memory_events.h"

namespace stepscope::profiling {

inline constexpr size_t kMemoryCategoryCount = 7;
// Bytes per category, indexed by category_index().
using CategoryBytes = std::array<int64_t, kMemoryCategoryCount>;

constexpr size_t category_index(MemoryCategory category) { return static_cast<size_t>(category); }

struct MemoryPoint {
  int64_t time_ns = 0;                // the event's time
  CategoryBytes bytes_by_category{};  // live bytes per category after the event
  int64_t allocated_bytes = 0;        // sum of bytes_by_category
  int64_t reserved_bytes = -1;        // the allocator's reserved total after the event; -1 unknown
  int32_t band = -1;                  // index into MemoryTimeline::bands in effect; -1 before any mark
};

struct PhaseBand {
  std::string phase;  // the mark's phase: "forward", "backward", "optimizer step", "step end"
  int step = -1;
  bool warmup = false;
  int64_t start_ns = 0;  // the mark's time
  int64_t end_ns = 0;    // the next mark's time, or the end of the log for the last band
};

struct MemoryPeak {
  std::string label;  // see rule 6
  int64_t time_ns = 0;
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = -1;  // at the same point; -1 unknown
  CategoryBytes bytes_by_category{};
  int step = -1;  // the step of the band the point lies in; -1 before any mark
  bool warmup = false;
};

struct LargeAllocation {
  int64_t bytes = 0;  // size of each allocation in the group
  int64_t count = 0;  // how many allocation events the group has
  MemoryCategory category = MemoryCategory::other;
  std::string phase;  // the events' innermost range; "" outside any range
};

struct MemoryTimeline {
  std::vector<MemoryPoint> points;          // one per event considered, full resolution (rule 4)
  std::vector<PhaseBand> bands;             // in time order (rule 5)
  std::vector<MemoryPeak> peaks;            // rule 6
  std::vector<LargeAllocation> largest;     // rule 7
  int64_t peak_reserved_bytes = -1;         // highest reserved total seen; -1 unknown
  int64_t baseline_bytes = 0;               // allocated before recording began (rule 2), as other
  uint64_t unknown_frees = 0;               // frees of addresses not live (rule 2)
  int64_t unknown_freed_bytes = 0;          // their sizes, positive
  uint64_t implicit_frees = 0;              // allocations over a live address (rule 2)
  uint64_t unmatched_labels = 0;            // labels naming no live block (rule 3)
  uint64_t dropped_events = 0;              // from the log: events beyond its limit
  int64_t event_limit = 0;                  // from the log
  bool truncated = false;                   // dropped_events > 0: the timeline ends early
  // Rule 8, per category: its highest live bytes counting labelled blocks at their tensors' own
  // sizes; -1 where no block of the category had a labelled size.
  CategoryBytes highest_tensor_bytes_by_category{-1, -1, -1, -1, -1, -1, -1};
  static_assert(kMemoryCategoryCount == 7, "one -1 per category above");
};

struct TimelineOptions {
  bool include_warmup = true;  // warm-up steps count for peaks and largest allocations
  size_t largest_count = 50;
  // Only events of this device (-1: CPU); every event when empty. The recorder logs CPU and
  // CUDA allocations alike, and one timeline should show one device. Labels carry no device:
  // they match addresses on any device (CPU and CUDA addresses do not overlap under UVA).
  std::optional<int> device;
};

MemoryTimeline build_memory_timeline(const AllocationLog& log, const TimelineOptions& options = {});

// Rule 8: the most live bytes each category reached at any point.
CategoryBytes highest_by_category(const MemoryTimeline& timeline);

// At most max_points of `points`, for drawing. Always kept, in this priority when
// max_points is too small for all of them: the highest allocated point, the first, the
// last, and for each category the first point at its maximum. The rest of the budget goes
// to equal buckets by index, each giving its highest and lowest allocated point (so falls
// show). Order is preserved; `points` itself when it already fits.
std::vector<MemoryPoint> decimate(const std::vector<MemoryPoint>& points, size_t max_points);

}  // namespace stepscope::profiling
