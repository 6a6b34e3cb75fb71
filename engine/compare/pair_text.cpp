#include "compare/pair_text.h"

#include "core/run_status.h"
#include "schema/value_format.h"

namespace stepscope::compare {

namespace {

constexpr const char* kArrow = " \u2192 ";

std::string cell_text(const schema::Value& value, const schema::Column& column) {
  return schema::display_text(value, column.kind);
}

// "Context 256", or a text setting alone ("fp32"); `value` may be "128 → 256".
std::string setting_text(const schema::Column& column, const std::string& value) {
  return column.kind == schema::ColumnKind::text ? value : column.label + " " + value;
}

}  // namespace

std::string identity_text(const schema::Table& a, const schema::Table& b, const schema::RowPair& pair) {
  const schema::Table& named = pair.a ? a : b;
  const size_t row = pair.a ? *pair.a : *pair.b;
  std::string text;
  for (size_t c = 0; c < named.columns.size(); ++c) {
    const auto& column = named.columns[c];
    if (column.role != schema::ColumnRole::identity) continue;
    std::string value = cell_text(named.rows[row][c], column);
    bool changed = false;
    for (const auto& change : pair.changes) {
      if (!pair.a || change.column != c) continue;
      value = cell_text(change.a, column) + kArrow + cell_text(change.b, column);
      changed = true;
    }
    // A setting neither side has (an imported profile's model settings) says nothing.
    if (!changed && schema::is_missing(named.rows[row][c])) continue;
    text += (text.empty() ? "" : ", ") + setting_text(column, value);
  }
  return text;
}

std::string changes_text(const schema::Table& a, const std::vector<schema::SettingChange>& changes) {
  std::string text;
  for (const auto& change : changes) {
    const auto& column = a.columns[change.column];
    text += (text.empty() ? "" : ", ") + column.label + " " + cell_text(change.a, column) + kArrow +
            cell_text(change.b, column);
  }
  return text;
}

std::string missing_reason(const schema::Table& table, std::optional<size_t> row, const std::string& side) {
  if (!row) return side + " has no such configuration";
  const int status_column = table.column_index("status");
  const std::string status =
      status_column < 0 ? std::string() : schema::text_of(table.rows[*row][static_cast<size_t>(status_column)]);
  if (status == to_string(RunStatus::out_of_memory)) return side + " ran out of memory";
  if (status == to_string(RunStatus::failed)) return side + " failed";
  if (status == to_string(RunStatus::cancelled)) return side + " was cancelled before measuring it";
  return side + " did not measure it";
}

}  // namespace stepscope::compare
