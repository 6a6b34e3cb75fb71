#include "profiling/kernel_stats_schema.h"

namespace stepscope::profiling {

namespace {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;

// nsys writes percentages, means, medians and deviations with one decimal.
constexpr schema::CsvNumberFormat kOneDecimal{1, false};

schema::Schema<KernelStats> make_schema() {
  const std::string ns = "Shown in adaptive units; exported in ns";
  schema::Schema<KernelStats> s{"kernels", {}};
  auto& f = s.fields;
  f.push_back({Column{"Time (%)", "Time (%)", ColumnKind::percent, ColumnRole::measure, "Share of the range's GPU time",
                      {}, kOneDecimal},
               [](const KernelStats& k) { return Value(k.time_percent); }});
  f.push_back({Column{"Total Time (ns)", "Total Time", ColumnKind::nanoseconds, ColumnRole::measure, ns},
               [](const KernelStats& k) { return Value(k.total_ns); }});
  f.push_back({Column{"Instances", "Instances", ColumnKind::integer, ColumnRole::measure},
               [](const KernelStats& k) { return Value(k.instances); }});
  f.push_back({Column{"Avg (ns)", "Avg", ColumnKind::nanoseconds, ColumnRole::measure, ns, {}, kOneDecimal},
               [](const KernelStats& k) { return Value(k.mean_ns); }});
  f.push_back({Column{"Med (ns)", "Med", ColumnKind::nanoseconds, ColumnRole::measure, ns, {}, kOneDecimal},
               [](const KernelStats& k) { return Value(k.median_ns); }});
  f.push_back({Column{"Min (ns)", "Min", ColumnKind::nanoseconds, ColumnRole::measure, ns},
               [](const KernelStats& k) { return Value(k.min_ns); }});
  f.push_back({Column{"Max (ns)", "Max", ColumnKind::nanoseconds, ColumnRole::measure, ns},
               [](const KernelStats& k) { return Value(k.max_ns); }});
  f.push_back({Column{"StdDev (ns)", "StdDev", ColumnKind::nanoseconds, ColumnRole::measure,
                      "Sample standard deviation; " + ns, {}, kOneDecimal},
               [](const KernelStats& k) { return Value(k.stddev_ns); }});
  // At most three decimals, none trailing: 24 -> "24", 1/3 -> "0.333", on screen and in files.
  f.push_back({Column{"Instances/Step", "Instances/Step", ColumnKind::real, ColumnRole::measure,
                      "Instances per measured step", {}, {3, true}},
               [](const KernelStats& k) { return Value(k.instances_per_step); }});
  f.push_back({Column{"Category", "Category", ColumnKind::text, ColumnRole::identity},
               [](const KernelStats& k) { return Value(to_string(k.category)); }});
  f.push_back({Column{"Name", "Name", ColumnKind::text, ColumnRole::identity},
               [](const KernelStats& k) { return Value(k.name); }});
  return s;
}

}  // namespace

const schema::Schema<KernelStats>& kernel_stats_schema() {
  static const schema::Schema<KernelStats> schema = make_schema();
  return schema;
}

}  // namespace stepscope::profiling
