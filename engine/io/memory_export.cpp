#include "io/memory_export.h"

#include <string>
#include <vector>

#include "io/csv_writer.h"

namespace stepscope {

namespace {

using profiling::all_memory_categories;
using profiling::category_index;

// Both tables end with the bytes of each category, the allocated total and the reserved total.
std::vector<std::string> header_with_bytes(std::vector<std::string> head) {
  for (auto category : all_memory_categories()) head.push_back(profiling::to_string(category) + " (bytes)");
  head.insert(head.end(), {"Allocated (bytes)", "Reserved (bytes)"});
  return head;
}

std::vector<std::string> row_with_bytes(std::vector<std::string> row, const profiling::CategoryBytes& bytes,
                                        int64_t allocated, int64_t reserved) {
  for (auto category : all_memory_categories()) row.push_back(std::to_string(bytes[category_index(category)]));
  row.push_back(std::to_string(allocated));
  row.push_back(reserved >= 0 ? std::to_string(reserved) : "");
  return row;
}

// A file's times may lie at int64's ends: their difference in double, never a wrapped int64.
double ms_since(int64_t origin_ns, int64_t time_ns) {
  int64_t since = 0;
  if (!__builtin_sub_overflow(time_ns, origin_ns, &since)) return static_cast<double>(since) * 1e-6;
  return (static_cast<double>(time_ns) - static_cast<double>(origin_ns)) * 1e-6;
}

int64_t origin_of(const profiling::MemoryTimeline& timeline) {
  return timeline.points.empty() ? 0 : timeline.points.front().time_ns;
}

std::string phase_of(const profiling::MemoryTimeline& timeline, int32_t band) {
  if (band < 0 || static_cast<size_t>(band) >= timeline.bands.size()) return "";
  const auto& b = timeline.bands[static_cast<size_t>(band)];
  return b.phase + (b.warmup ? " (warm-up " : " (step ") + std::to_string(b.step) + ")";
}

}  // namespace

void write_memory_timeline_csv(std::ostream& out, const profiling::MemoryTimeline& timeline, size_t max_points) {
  CsvWriter csv(out);
  csv.write_row(header_with_bytes({"Time (ms)", "Phase"}));
  const int64_t origin = origin_of(timeline);
  for (const auto& point : profiling::decimate(timeline.points, max_points)) {
    csv.write_row(row_with_bytes({format_number(ms_since(origin, point.time_ns)), phase_of(timeline, point.band)},
                                 point.bytes_by_category, point.allocated_bytes, point.reserved_bytes));
  }
}

void write_memory_peaks_csv(std::ostream& out, const profiling::MemoryTimeline& timeline) {
  CsvWriter csv(out);
  csv.write_row(header_with_bytes({"Peak", "Step", "Time (ms)"}));
  const int64_t origin = origin_of(timeline);
  for (const auto& peak : timeline.peaks) {
    csv.write_row(row_with_bytes({peak.label, std::to_string(peak.step), format_number(ms_since(origin, peak.time_ns))},
                                 peak.bytes_by_category, peak.allocated_bytes, peak.reserved_bytes));
  }
}

void write_largest_allocations_csv(std::ostream& out, const profiling::MemoryTimeline& timeline) {
  CsvWriter csv(out);
  csv.write_row({"Bytes", "Count", "Category", "Phase"});
  for (const auto& a : timeline.largest) {
    csv.write_row({std::to_string(a.bytes), std::to_string(a.count), profiling::to_string(a.category), a.phase});
  }
}

void write_memory_categories_csv(std::ostream& out, const profiling::MemoryTimeline& timeline) {
  CsvWriter csv(out);
  csv.write_row({"Category", "Highest (bytes)", "Highest as tensors (bytes)", "Allocator rounding (bytes)"});
  const auto highest = profiling::highest_by_category(timeline);
  for (auto category : all_memory_categories()) {
    const int64_t blocks = highest[category_index(category)];
    const int64_t tensors = timeline.highest_tensor_bytes_by_category[category_index(category)];
    const bool known = tensors >= 0;
    csv.write_row({profiling::to_string(category), std::to_string(blocks), known ? std::to_string(tensors) : "",
                   known ? std::to_string(blocks - tensors) : ""});
  }
}

}  // namespace stepscope
