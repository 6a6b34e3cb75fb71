#include "io/memory_export.h"

#include <string>
#include <vector>

#include "io/csv_writer.h"

namespace stepscope {

namespace {

using profiling::all_memory_categories;
using profiling::category_index;

std::vector<std::string> with_categories(std::vector<std::string> head, const char* suffix) {
  for (auto category : all_memory_categories()) head.push_back(profiling::to_string(category) + suffix);
  return head;
}

void append_categories(std::vector<std::string>& row, const profiling::CategoryBytes& bytes) {
  for (auto category : all_memory_categories()) row.push_back(std::to_string(bytes[category_index(category)]));
}

double ms_since(int64_t origin_ns, int64_t time_ns) { return static_cast<double>(time_ns - origin_ns) * 1e-6; }

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
  auto header = with_categories({"Time (ms)", "Phase"}, " (bytes)");
  header.insert(header.end(), {"Allocated (bytes)", "Reserved (bytes)"});
  csv.write_row(header);
  const int64_t origin = origin_of(timeline);
  for (const auto& point : profiling::decimate(timeline.points, max_points)) {
    std::vector<std::string> row = {format_number(ms_since(origin, point.time_ns)), phase_of(timeline, point.band)};
    append_categories(row, point.bytes_by_category);
    row.push_back(std::to_string(point.allocated_bytes));
    row.push_back(point.reserved_bytes >= 0 ? std::to_string(point.reserved_bytes) : "");
    csv.write_row(row);
  }
}

void write_memory_peaks_csv(std::ostream& out, const profiling::MemoryTimeline& timeline) {
  CsvWriter csv(out);
  auto header = with_categories({"Peak", "Step", "Time (ms)"}, " (bytes)");
  header.insert(header.end(), {"Allocated (bytes)", "Reserved (bytes)"});
  csv.write_row(header);
  const int64_t origin = origin_of(timeline);
  for (const auto& peak : timeline.peaks) {
    std::vector<std::string> row = {peak.label, std::to_string(peak.step), format_number(ms_since(origin, peak.time_ns))};
    append_categories(row, peak.bytes_by_category);
    row.push_back(std::to_string(peak.allocated_bytes));
    row.push_back(peak.reserved_bytes >= 0 ? std::to_string(peak.reserved_bytes) : "");
    csv.write_row(row);
  }
}

void write_largest_allocations_csv(std::ostream& out, const profiling::MemoryTimeline& timeline) {
  CsvWriter csv(out);
  csv.write_row({"Bytes", "Count", "Category", "Phase"});
  for (const auto& a : timeline.largest) {
    csv.write_row({std::to_string(a.bytes), std::to_string(a.count), profiling::to_string(a.category), a.phase});
  }
}

}  // namespace stepscope
