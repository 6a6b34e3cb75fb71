#include "compare/table_comparison.h"

#include "compare/pair_text.h"

namespace stepscope::compare {

namespace {

std::optional<double> number_at(const schema::Table& table, std::optional<size_t> row, int column) {
  if (!row || column < 0) return std::nullopt;
  return schema::number_of(table.rows[*row][static_cast<size_t>(column)]);
}

std::string status_at(const schema::Table& table, std::optional<size_t> row) {
  const int column = table.column_index("status");
  if (!row || column < 0) return {};
  return schema::text_of(table.rows[*row][static_cast<size_t>(column)]);
}

std::optional<int64_t> samples_at(const SampleCounts& samples, std::optional<size_t> row) {
  return row && *row < samples.size() ? samples[*row] : std::nullopt;
}

// The note under a figure one side lacks: why, from that side's row.
std::string note_for(const ComparisonRow& r, const schema::Table& a, const schema::Table& b,
                     const schema::RowPair& pair) {
  std::string note;
  const auto add = [&](const std::string& part) { note += (note.empty() ? "" : "; ") + part; };
  if (!r.a) add(missing_reason(a, pair.a, "A"));
  if (!r.b) add(missing_reason(b, pair.b, "B"));
  return note;
}

ComparisonRow unpaired(const schema::Table& a, const schema::Table& b, const schema::RowPair& pair) {
  ComparisonRow r;
  r.table = pair.a ? a.schema : b.schema;
  r.configuration = identity_text(a, b, pair);
  r.pairing = pair.a ? Pairing::only_a : Pairing::only_b;
  r.a_status = status_at(a, pair.a);
  r.b_status = status_at(b, pair.b);
  r.note = pair.a ? "B has no such configuration" : "A has no such configuration";
  return r;
}

}  // namespace

std::vector<ComparisonRow> compare_tables(const schema::Table& a, const schema::Table& b,
                                          const std::vector<schema::RowPair>& pairs, const SampleCounts& samples_a,
                                          const SampleCounts& samples_b) {
  std::vector<ComparisonRow> rows;
  for (const auto& pair : pairs) {
    if (!pair.a || !pair.b) {
      rows.push_back(unpaired(a, b, pair));
      continue;
    }
    const std::string configuration = identity_text(a, b, pair);
    const std::string changes = changes_text(a, pair.changes);
    for (size_t c = 0; c < a.columns.size(); ++c) {
      const auto& column = a.columns[c];
      if (column.role != schema::ColumnRole::measure || !schema::is_numeric(column.kind)) continue;
      ComparisonRow r;
      r.table = a.schema;
      r.configuration = configuration;
      r.pairing = pair.changes.empty() ? Pairing::same : Pairing::changed;
      r.changes = changes;
      r.metric = schema::header_text(column);
      r.metric_key = column.key;
      r.kind = column.kind;
      r.a = number_at(a, pair.a, static_cast<int>(c));
      r.b = number_at(b, pair.b, b.column_index(column.key));
      if (!r.a && !r.b) continue;  // neither measured it: nothing to say
      if (!column.spread_key.empty()) {
        r.a_std = number_at(a, pair.a, a.column_index(column.spread_key));
        r.b_std = number_at(b, pair.b, b.column_index(column.spread_key));
      }
      // n: the table's own count where its column names one, else what the caller knows.
      const auto counted = [&](const schema::Table& t, std::optional<size_t> row, const SampleCounts& known) {
        const auto n = column.samples_key.empty() ? std::nullopt : number_at(t, row, t.column_index(column.samples_key));
        return n ? std::optional<int64_t>(static_cast<int64_t>(*n)) : samples_at(known, row);
      };
      r.a_samples = counted(a, pair.a, samples_a);
      r.b_samples = counted(b, pair.b, samples_b);
      r.a_status = status_at(a, pair.a);
      r.b_status = status_at(b, pair.b);
      r.note = note_for(r, a, b, pair);
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

std::vector<ComparisonRow> unpaired_rows(const schema::Table& table, Pairing side) {
  std::vector<ComparisonRow> rows;
  const schema::Table none{table.schema, table.columns, {}};
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const bool in_a = side == Pairing::only_a;
    const schema::RowPair pair{in_a ? std::optional(r) : std::nullopt, in_a ? std::nullopt : std::optional(r), {}};
    rows.push_back(in_a ? unpaired(table, none, pair) : unpaired(none, table, pair));
  }
  return rows;
}

}  // namespace stepscope::compare
