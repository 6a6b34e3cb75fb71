#include "io/kernel_summary_export.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "io/csv_writer.h"
#include "io/table_csv.h"
#include "profiling/kernel_stats_schema.h"

namespace stepscope {

namespace {

// One decimal, as nsys writes percentages and averages; "" for NaN like format_number.
std::string one_decimal(double value) {
  if (std::isnan(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

std::string integer(int64_t value) { return std::to_string(value); }

}  // namespace

void write_kernel_summary_csv(std::ostream& out, const profiling::KernelProfile& profile, bool short_names) {
  const auto& schema = profiling::kernel_stats_schema();
  const auto columns = schema.columns();
  CsvWriter csv(out);
  auto header = csv_header(columns);
  header.insert(header.begin(), "Range");
  csv.write_row(header);
  for (const auto& range : profile.ranges) {
    for (const auto& k : range.kernels) {
      auto row = csv_row(columns, schema.values(k));
      if (short_names && !k.short_name.empty()) row.back() = k.short_name;  // Name is the last column
      row.insert(row.begin(), range.range);
      csv.write_row(row);
    }
  }
}

void write_category_csv(std::ostream& out, const profiling::KernelProfile& profile) {
  CsvWriter csv(out);
  csv.write_row({"Range", "Category", "Time (%)", "Total Time (ns)", "Instances"});
  for (const auto& range : profile.ranges) {
    for (const auto& c : range.categories) {
      csv.write_row({range.range, profiling::to_string(c.category), one_decimal(c.percent), integer(c.total_ns),
                     integer(c.instances)});
    }
  }
}

void write_step_gpu_usage_csv(std::ostream& out, const profiling::KernelProfile& profile) {
  CsvWriter csv(out);
  csv.write_row({"Step", "Span (ns)", "Busy (ns)", "Idle (ns)", "Busy (%)", "Kernels", "Avg Kernel (ns)",
                 "Launch Bound"});
  for (const auto& s : profile.steps) {
    const double busy_percent = s.span_ns > 0 ? 100.0 * static_cast<double>(s.busy_ns) / s.span_ns : 0.0;
    csv.write_row({std::to_string(s.step), integer(s.span_ns), integer(s.busy_ns), integer(s.idle_ns),
                   one_decimal(busy_percent), integer(s.kernels), one_decimal(s.mean_kernel_ns),
                   s.launch_bound ? "yes" : "no"});
  }
}

void write_cpu_ranges_csv(std::ostream& out, const profiling::KernelProfile& profile) {
  CsvWriter csv(out);
  csv.write_row({"Range", "Instances", "Total Time (ns)", "Avg (ns)", "Parent"});
  for (const auto& r : profile.cpu_ranges) {
    csv.write_row({r.range, integer(r.instances), integer(r.total_ns), one_decimal(r.mean_ns), r.parent});
  }
}

}  // namespace stepscope
