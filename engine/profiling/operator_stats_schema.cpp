#include "profiling/operator_stats_schema.h"

namespace stepscope::profiling {

namespace {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;

// Per-step figures: one decimal, as the kernel summaries write means.
constexpr schema::CsvNumberFormat kOneDecimal{1, false};
// Calls and launches per step: at most three decimals, none trailing.
constexpr schema::CsvNumberFormat kPerStepCount{3, true};

const std::string kNs = "Shown in adaptive units; exported in ns";

double per_step(const OperatorProfile& profile, int64_t total) {
  return profile.measured_steps > 0 ? static_cast<double>(total) / profile.measured_steps : 0.0;
}

// GPU figures exist only where GPU activity was recorded: 0 there would read as "no GPU work".
Value gpu_total(const OperatorRow& r, int64_t OperatorStats::*member) {
  return schema::value_if(r.profile->gpu_activity_recorded, r.op->*member);
}
Value gpu_per_step(const OperatorRow& r, int64_t OperatorStats::*member) {
  return schema::value_if(r.profile->gpu_activity_recorded, per_step(*r.profile, r.op->*member));
}

template <class Row>
void add_identity(schema::Schema<Row>& s) {
  auto& f = s.fields;
  f.push_back({Column{"Range", "Range", ColumnKind::text, ColumnRole::identity,
                      "The ranges open around the calls, outermost first"},
               [](const Row& r) { return Value(range_path_text(r.op->range_path)); }});
  f.push_back({Column{"Operator", "Operator", ColumnKind::text, ColumnRole::identity, "The ATen operator or autograd node"},
               [](const Row& r) { return Value(r.op->name); }});
  f.push_back({Column{"Input Shapes", "Input shapes", ColumnKind::text, ColumnRole::identity,
                      "As key_averages(group_by_input_shape=True) prints them"},
               [](const Row& r) { return Value(r.op->input_shapes); }});
}

schema::Schema<OperatorRow> make_operator_schema() {
  schema::Schema<OperatorRow> s{"operators", {}};
  add_identity(s);
  auto& f = s.fields;
  f.push_back({Column{"Calls", "Calls", ColumnKind::integer, ColumnRole::measure, "Calls over the measured steps"},
               [](const OperatorRow& r) { return Value(r.op->calls); }});
  f.push_back({Column{"Calls/Step", "Calls/step", ColumnKind::real, ColumnRole::measure, "Calls per measured step", {},
                      kPerStepCount},
               [](const OperatorRow& r) { return Value(per_step(*r.profile, r.op->calls)); }});
  f.push_back({Column{"Self CPU (ns)", "Self CPU", ColumnKind::nanoseconds, ColumnRole::measure,
                      "Entry to exit less the operators called inside it; " + kNs},
               [](const OperatorRow& r) { return Value(r.op->self_cpu_ns); }});
  f.push_back({Column{"Total CPU (ns)", "Total CPU", ColumnKind::nanoseconds, ColumnRole::measure,
                      "Entry to exit, the operators called inside it included; " + kNs},
               [](const OperatorRow& r) { return Value(r.op->total_cpu_ns); }});
  f.push_back({Column{"Self GPU (ns)", "Self GPU", ColumnKind::nanoseconds, ColumnRole::measure,
                      "The kernels it launched itself; " + kNs},
               [](const OperatorRow& r) { return gpu_total(r, &OperatorStats::self_gpu_ns); }});
  f.push_back({Column{"Total GPU (ns)", "Total GPU", ColumnKind::nanoseconds, ColumnRole::measure,
                      "With the kernels of the operators called inside it; " + kNs},
               [](const OperatorRow& r) { return gpu_total(r, &OperatorStats::total_gpu_ns); }});
  f.push_back({Column{"Self CPU/Step (ns)", "Self CPU/step", ColumnKind::nanoseconds, ColumnRole::detail,
                      "Self CPU time per measured step; " + kNs, {}, kOneDecimal},
               [](const OperatorRow& r) { return Value(per_step(*r.profile, r.op->self_cpu_ns)); }});
  f.push_back({Column{"Total CPU/Step (ns)", "Total CPU/step", ColumnKind::nanoseconds, ColumnRole::detail,
                      "Total CPU time per measured step; " + kNs, {}, kOneDecimal},
               [](const OperatorRow& r) { return Value(per_step(*r.profile, r.op->total_cpu_ns)); }});
  f.push_back({Column{"Self GPU/Step (ns)", "Self GPU/step", ColumnKind::nanoseconds, ColumnRole::detail,
                      "Self GPU time per measured step; " + kNs, {}, kOneDecimal},
               [](const OperatorRow& r) { return gpu_per_step(r, &OperatorStats::self_gpu_ns); }});
  f.push_back({Column{"Total GPU/Step (ns)", "Total GPU/step", ColumnKind::nanoseconds, ColumnRole::detail,
                      "Total GPU time per measured step; " + kNs, {}, kOneDecimal},
               [](const OperatorRow& r) { return gpu_per_step(r, &OperatorStats::total_gpu_ns); }});
  f.push_back({Column{"Kernels", "Kernels", ColumnKind::integer, ColumnRole::measure,
                      "Distinct kernels it launched itself (operator_kernels lists them)"},
               [](const OperatorRow& r) {
                 return schema::value_if(r.profile->gpu_activity_recorded, r.op->kernels.size());
               }});
  return s;
}

schema::Schema<OperatorKernelRow> make_kernel_schema() {
  schema::Schema<OperatorKernelRow> s{"operator_kernels", {}};
  add_identity(s);
  auto& f = s.fields;
  f.push_back({Column{"Kernel", "Kernel", ColumnKind::text, ColumnRole::identity, "Demangled in full"},
               [](const OperatorKernelRow& r) { return Value(r.kernel->name); }});
  f.push_back({Column{"Short Name", "Short name", ColumnKind::text, ColumnRole::detail,
                      "Templates and arguments folded"},
               [](const OperatorKernelRow& r) { return Value(r.kernel->short_name); }});
  f.push_back({Column{"Category", "Category", ColumnKind::text, ColumnRole::detail},
               [](const OperatorKernelRow& r) { return Value(to_string(r.kernel->category)); }});
  f.push_back({Column{"Launches", "Launches", ColumnKind::integer, ColumnRole::measure,
                      "Launches over the measured steps"},
               [](const OperatorKernelRow& r) { return Value(r.kernel->launches); }});
  f.push_back({Column{"Launches/Step", "Launches/step", ColumnKind::real, ColumnRole::measure,
                      "Launches per measured step", {}, kPerStepCount},
               [](const OperatorKernelRow& r) { return Value(per_step(*r.profile, r.kernel->launches)); }});
  f.push_back({Column{"Total Time (ns)", "GPU time", ColumnKind::nanoseconds, ColumnRole::measure,
                      "GPU time over the measured steps; " + kNs},
               [](const OperatorKernelRow& r) { return Value(r.kernel->total_ns); }});
  f.push_back({Column{"Avg (ns)", "Avg", ColumnKind::nanoseconds, ColumnRole::measure, "Per launch; " + kNs, {},
                      kOneDecimal},
               [](const OperatorKernelRow& r) {
                 return Value(r.kernel->launches > 0 ? static_cast<double>(r.kernel->total_ns) / r.kernel->launches
                                                     : 0.0);
               }});
  f.push_back({Column{"Time/Step (ns)", "GPU time/step", ColumnKind::nanoseconds, ColumnRole::detail,
                      "GPU time per measured step; " + kNs, {}, kOneDecimal},
               [](const OperatorKernelRow& r) { return Value(per_step(*r.profile, r.kernel->total_ns)); }});
  return s;
}

}  // namespace

std::string range_path_text(const std::vector<std::string>& range_path) {
  std::string text;
  for (const auto& range : range_path) text += (text.empty() ? "" : "/") + range;
  return text;
}

const schema::Schema<OperatorRow>& operator_stats_schema() {
  static const schema::Schema<OperatorRow> schema = make_operator_schema();
  return schema;
}

const schema::Schema<OperatorKernelRow>& operator_kernel_schema() {
  static const schema::Schema<OperatorKernelRow> schema = make_kernel_schema();
  return schema;
}

std::vector<OperatorRow> operator_rows(const OperatorProfile& profile) {
  std::vector<OperatorRow> rows;
  rows.reserve(profile.operators.size());
  for (const auto& op : profile.operators) rows.push_back({&profile, &op});
  return rows;
}

std::vector<OperatorKernelRow> operator_kernel_rows(const OperatorProfile& profile) {
  std::vector<OperatorKernelRow> rows;
  for (const auto& op : profile.operators) {
    for (const auto& kernel : op.kernels) rows.push_back({&profile, &op, &kernel});
  }
  return rows;
}

}  // namespace stepscope::profiling
