#include "io/kernel_summary_export.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "io/csv_writer.h"

namespace stepscope {

namespace {

// One decimal, as nsys writes percentages and averages; "" for NaN like format_number.
std::string one_decimal(double value) {
  if (std::isnan(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

// At most three decimals, no trailing zeros: 24 -> "24", 1/3 -> "0.333".
std::string three_decimals(double value) {
  if (!std::isfinite(value)) return format_number(value);
  return format_number(std::round(value * 1000.0) / 1000.0);
}

std::string integer(int64_t value) { return std::to_string(value); }

}  // namespace

void write_kernel_summary_csv(std::ostream& out, const profiling::KernelProfile& profile, bool short_names) {
  CsvWriter csv(out);
  csv.write_row({"Range", "Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                 "StdDev (ns)", "Instances/Step", "Category", "Name"});
  for (const auto& range : profile.ranges) {
    for (const auto& k : range.kernels) {
      const std::string& name = short_names && !k.short_name.empty() ? k.short_name : k.name;
      csv.write_row({range.range, one_decimal(k.time_percent), integer(k.total_ns), integer(k.instances),
                     one_decimal(k.mean_ns), one_decimal(k.median_ns), integer(k.min_ns), integer(k.max_ns),
                     one_decimal(k.stddev_ns), three_decimals(k.instances_per_step),
                     profiling::to_string(k.category), name});
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
  csv.write_row({"Range", "Instances", "Total Time (ns)", "Avg (ns)"});
  for (const auto& r : profile.cpu_ranges) {
    csv.write_row({r.range, integer(r.instances), integer(r.total_ns), one_decimal(r.mean_ns)});
  }
}

}  // namespace stepscope
