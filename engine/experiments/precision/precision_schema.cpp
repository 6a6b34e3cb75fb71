#include "experiments/precision/precision_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace stepscope::precision {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;

namespace {

schema::Schema<AccumulationCase> make_accumulation_schema() {
  schema::Schema<AccumulationCase> s{"precision.accumulate", {}};
  auto& f = s.fields;
  f.push_back({Column{"case", "Case", ColumnKind::text, ColumnRole::identity},
               [](const AccumulationCase& c) { return Value(c.name); }});
  f.push_back({Column{"accumulator", "Accumulator", ColumnKind::text, ColumnRole::detail, "dtype of the running sum"},
               [](const AccumulationCase& c) { return Value(c.accumulator); }});
  f.push_back({Column{"addend", "Addend", ColumnKind::text, ColumnRole::detail, "dtype of the value added"},
               [](const AccumulationCase& c) { return Value(c.addend); }});
  f.push_back({Column{"method", "Method", ColumnKind::text, ColumnRole::detail, "naive, Kahan-compensated or pairwise"},
               [](const AccumulationCase& c) { return Value(to_string(c.method)); }});
  f.push_back({Column{"additions", "Additions", ColumnKind::integer, ColumnRole::detail},
               [](const AccumulationCase& c) { return Value(c.additions); }});
  // Nine significant digits: what PyTorch's full float32 repr shows (10.0001335).
  f.push_back({Column{"result", "Result", ColumnKind::real, ColumnRole::measure, "The accumulator's final value",
                      {}, {-1, false, 9}},
               [](const AccumulationCase& c) { return Value(c.result); }});
  f.push_back({Column{"exact", "Exact", ColumnKind::real, ColumnRole::detail, "additions x the value as written"},
               [](const AccumulationCase& c) { return Value(c.exact); }});
  f.push_back({Column{"abs_error", "Abs. error", ColumnKind::real, ColumnRole::measure, "|result - exact|"},
               [](const AccumulationCase& c) { return Value(c.abs_error); }});
  f.push_back({Column{"explanation", "Why", ColumnKind::text, ColumnRole::note},
               [](const AccumulationCase& c) { return Value(c.explanation); }});
  return s;
}

schema::Schema<TensorDtype> make_autocast_schema() {
  schema::Schema<TensorDtype> s{"precision.autocast", {}};
  auto& f = s.fields;
  f.push_back({Column{"tensor", "Tensor", ColumnKind::text, ColumnRole::identity},
               [](const TensorDtype& t) { return Value(t.tensor); }});
  f.push_back({Column{"kind", "Kind", ColumnKind::text, ColumnRole::identity},
               [](const TensorDtype& t) { return Value(to_string(t.kind)); }});
  f.push_back({Column{"dtype", "dtype", ColumnKind::text, ColumnRole::measure},
               [](const TensorDtype& t) { return Value(t.dtype); }});
  return s;
}

std::string text_at(const schema::Table& table, size_t row, const char* key) {
  const int c = table.column_index(key);
  return c < 0 ? std::string() : schema::text_of(table.rows[row][static_cast<size_t>(c)]);
}

double number_at(const schema::Table& table, size_t row, const char* key) {
  const int c = table.column_index(key);
  return c < 0 ? NAN : schema::number_of(table.rows[row][static_cast<size_t>(c)]).value_or(NAN);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  }
  return out;
}

}  // namespace

const schema::Schema<AccumulationCase>& accumulation_schema() {
  static const auto schema = make_accumulation_schema();
  return schema;
}

const schema::Schema<TensorDtype>& autocast_schema() {
  static const auto schema = make_autocast_schema();
  return schema;
}

std::string accumulation_reading(const schema::Table& table) {
  if (table.rows.empty()) return "";
  size_t best = 0, worst = 0;
  for (size_t r = 1; r < table.rows.size(); ++r) {
    if (number_at(table, r, "abs_error") < number_at(table, best, "abs_error")) best = r;
    if (number_at(table, r, "abs_error") > number_at(table, worst, "abs_error")) worst = r;
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "Adding %.0f values: %s ends %.3g from the exact sum, %s only %.3g. A sum in a 16-bit "
                "accumulator loses the low bits of every addition once the sum is large; adding 16-bit values "
                "into a float32 accumulator keeps the sum exact but carries each value's own rounding; "
                "compensated (Kahan) and pairwise sums recover most of the loss without a wider type. Mixed "
                "precision therefore keeps reductions and master weights in float32.",
                number_at(table, 0, "additions"), text_at(table, worst, "case").c_str(),
                number_at(table, worst, "abs_error"), text_at(table, best, "case").c_str(),
                number_at(table, best, "abs_error"));
  return line;
}

std::string autocast_reading(const schema::Table& table) {
  // dtype -> tensors of each kind that have it.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> by_kind;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    by_kind[text_at(table, r, "kind")][text_at(table, r, "dtype")].push_back(text_at(table, r, "tensor"));
  }
  std::string out;
  const auto say = [&](const char* kind, const char* noun) {
    const auto it = by_kind.find(kind);
    if (it == by_kind.end()) return;
    std::vector<std::string> parts;
    for (const auto& [dtype, tensors] : it->second) {
      parts.push_back(dtype + (it->second.size() > 1 ? " (" + std::to_string(tensors.size()) + ")" : ""));
    }
    out += std::string(noun) + ": " + joined(parts) + ". ";
  };
  say("parameter", "Parameters stay in their own dtype under autocast");
  say("activation", "Module outputs");
  say("logits", "Logits");
  say("loss", "Loss");
  say("gradient", "Gradients take their parameter's dtype");
  // Name the activations autocast keeps in float32 (norms, softmax-like ops): the usual surprise.
  const auto activations = by_kind.find("activation");
  if (activations != by_kind.end() && activations->second.size() > 1) {
    const auto wide = activations->second.find("float32");
    if (wide != activations->second.end()) {
      std::vector<std::string> names(wide->second.begin(), wide->second.begin() + std::min<size_t>(4, wide->second.size()));
      out += "Kept in float32 by autocast's op lists: " + joined(names) + (wide->second.size() > 4 ? ", ..." : "") +
             " (normalisation and reductions need the range), while matrix multiplies run in the lower precision.";
    }
  }
  return out;
}

}  // namespace stepscope::precision
