// Memory timeline tables as CSV: the timeline (decimated without losing peaks), the peaks
// per phase, the largest allocations, and each category's highest bytes beside its tensors'
// own (the allocator's rounding). Bytes stay bytes; times are ms from the first event.
#pragma once

#include <ostream>

#include "profiling/memory_timeline.h"

namespace stepscope {

void write_memory_timeline_csv(std::ostream& out, const profiling::MemoryTimeline& timeline, size_t max_points);
void write_memory_peaks_csv(std::ostream& out, const profiling::MemoryTimeline& timeline);
void write_largest_allocations_csv(std::ostream& out, const profiling::MemoryTimeline& timeline);
void write_memory_categories_csv(std::ostream& out, const profiling::MemoryTimeline& timeline);

}  // namespace stepscope
