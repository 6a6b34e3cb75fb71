#include "compare/comparison_schema.h"

#include <algorithm>

namespace stepscope::compare {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;
using Row = ComparisonRow;

namespace {

Value number(const std::optional<double>& v) { return v ? Value(*v) : Value{}; }
Value count(const std::optional<int64_t>& v) { return v ? Value(*v) : Value{}; }

// Keys of the columns in the row's unit (in_row_unit).
constexpr const char* kRowUnit[] = {"a", "b", "b_minus_a", "a_std", "b_std", "noise"};

schema::Schema<Row> make_comparison_schema() {
  schema::Schema<Row> s{"compare", {}};
  auto& f = s.fields;
  const auto add = [&](Column column, std::function<Value(const Row&)> get) {
    f.push_back({std::move(column), std::move(get)});
  };
  add({"table", "Table", ColumnKind::text, ColumnRole::identity,
       "What was compared: an experiment's table (\"bench\": the step benchmark) or \"kernel totals\""},
      [](const Row& r) { return Value(r.table); });
  add({"configuration", "Configuration", ColumnKind::text, ColumnRole::identity,
       "The row's identity settings; a setting changed between the runs as \"A \u2192 B\""},
      [](const Row& r) { return Value(r.configuration); });
  add({"measure", "Measure", ColumnKind::text, ColumnRole::identity, "A column's label, or a kernel's short name"},
      [](const Row& r) { return Value(r.metric); });
  add({"a", "A", ColumnKind::real, ColumnRole::measure, "Run A's value, in the row's unit"},
      [](const Row& r) { return number(r.a); });
  add({"b", "B", ColumnKind::real, ColumnRole::measure, "Run B's value, in the row's unit"},
      [](const Row& r) { return number(r.b); });
  add({"b_minus_a", "B - A", ColumnKind::real, ColumnRole::measure, "In the row's unit"},
      [](const Row& r) { return number(difference(r)); });
  add({"b_over_a", "B / A", ColumnKind::real, ColumnRole::measure, "Above 1: B is larger"},
      [](const Row& r) { return number(ratio(r)); });
  add({"verdict", "Verdict", ColumnKind::text, ColumnRole::measure,
       "The gate's: ok, within noise or regressed; empty where no threshold applies"},
      [](const Row& r) { return Value(to_string(r.verdict)); });
  add({"pairing", "Pairing", ColumnKind::text, ColumnRole::detail, "same, changed, only in A or only in B"},
      [](const Row& r) { return Value(to_string(r.pairing)); });
  add({"changed", "Changed", ColumnKind::text, ColumnRole::detail,
       "The identity settings that differ: \"Context 128 \u2192 256\""},
      [](const Row& r) { return Value(r.changes); });
  add({"measure_key", "Measure key", ColumnKind::text, ColumnRole::detail,
       "The column's key, or the kernel's full name"},
      [](const Row& r) { return Value(r.metric_key); });
  add({"unit", "Unit", ColumnKind::text, ColumnRole::detail,
       "The kind of the row's a, b, b_minus_a, a_std, b_std and noise, as table columns name kinds"},
      [](const Row& r) { return Value(schema::to_string(r.kind)); });
  add({"a_std", "A std", ColumnKind::real, ColumnRole::detail, "Standard deviation of A's measurements"},
      [](const Row& r) { return number(r.a_std); });
  add({"b_std", "B std", ColumnKind::real, ColumnRole::detail, "Standard deviation of B's measurements"},
      [](const Row& r) { return number(r.b_std); });
  add({"a_samples", "A samples", ColumnKind::integer, ColumnRole::detail, "How many measurements A's mean is over"},
      [](const Row& r) { return count(r.a_samples); });
  add({"b_samples", "B samples", ColumnKind::integer, ColumnRole::detail, "How many measurements B's mean is over"},
      [](const Row& r) { return count(r.b_samples); });
  add({"a_status", "A status", ColumnKind::text, ColumnRole::detail}, [](const Row& r) { return Value(r.a_status); });
  add({"b_status", "B status", ColumnKind::text, ColumnRole::detail}, [](const Row& r) { return Value(r.b_status); });
  add({"threshold_percent", "Threshold", ColumnKind::percent, ColumnRole::detail, "The gate's P, where one applies"},
      [](const Row& r) { return number(r.threshold_percent); });
  add({"noise", "Noise", ColumnKind::real, ColumnRole::detail,
       "2 x sqrt(sA\u00b2/nA + sB\u00b2/nB), in the row's unit"},
      [](const Row& r) { return number(r.noise); });
  add({"note", "Note", ColumnKind::text, ColumnRole::note}, [](const Row& r) { return Value(r.note); });
  return s;
}

}  // namespace

const schema::Schema<ComparisonRow>& comparison_schema() {
  static const auto schema = make_comparison_schema();
  return schema;
}

schema::Table comparison_table(const Comparison& comparison) { return comparison_schema().table(comparison.rows); }

bool in_row_unit(const schema::Column& column) {
  return std::any_of(std::begin(kRowUnit), std::end(kRowUnit), [&](const char* key) { return column.key == key; });
}

}  // namespace stepscope::compare
