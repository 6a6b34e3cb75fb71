#include "io/table_json.h"

namespace stepscope {

using nlohmann::json;
using schema::Value;

namespace {

json value_to_json(const Value& value) {
  if (schema::is_missing(value)) return nullptr;
  if (const auto* i = std::get_if<int64_t>(&value)) return *i;
  if (const auto* d = std::get_if<double>(&value)) return json_double(*d);
  return std::get<std::string>(value);
}

// Integers stay integers and reals reals, so a row reads back exactly as it was written.
Value value_from_json(const JsonAt& at, schema::ColumnKind kind) {
  const json& v = at.value();
  if (v.is_null()) return std::monostate{};
  if (kind == schema::ColumnKind::text) return read_string(at);
  if (kind == schema::ColumnKind::integer) return read_int64(at);
  if (v.is_number_integer()) return read_int64(at);
  return read_double(at);  // numbers, and "NaN" / "Infinity" / "-Infinity"
}

// A column of a kind this build does not know (a newer experiment's): whatever scalar it holds.
Value any_value_from_json(const JsonAt& at) {
  const json& v = at.value();
  if (v.is_null()) return std::monostate{};
  if (v.is_string()) return read_string(at);
  if (v.is_number_integer()) return read_int64(at);
  return read_double(at);
}

}  // namespace

json row_to_json(const std::vector<schema::Column>& columns, const std::vector<Value>& values) {
  json row = json::object();
  for (size_t i = 0; i < columns.size(); ++i) row[columns[i].key] = value_to_json(values[i]);
  return row;
}

std::vector<Value> row_from_json(const JsonAt& at, const std::vector<schema::Column>& columns) {
  std::vector<Value> values;
  values.reserve(columns.size());
  for (const auto& c : columns) values.push_back(value_from_json(at.member(c.key), c.kind));
  return values;
}

json table_to_json(const schema::Table& table) {
  json columns = json::array();
  for (const auto& c : table.columns) {
    columns.push_back({{"key", c.key},
                       {"label", c.label},
                       {"kind", to_string(c.kind)},
                       {"role", to_string(c.role)},
                       {"description", c.description},
                       {"spread_key", c.spread_key},
                       {"samples_key", c.samples_key},
                       {"csv", {{"decimals", c.csv.decimals},
                                {"trim_zeros", c.csv.trim_zeros},
                                {"significant_digits", c.csv.significant_digits}}}});
  }
  json rows = json::array();
  for (const auto& row : table.rows) rows.push_back(row_to_json(table.columns, row));
  return {{"schema", table.schema}, {"columns", columns}, {"rows", rows}};
}

schema::Table table_from_json(const JsonAt& at) {
  schema::Table table;
  table.schema = read_string(at.member("schema"));
  std::vector<bool> known_kind;
  const JsonAt columns = at.member("columns");
  for (size_t i = 0; i < columns.array_size(); ++i) {
    const JsonAt c = columns.element(i);
    schema::Column column;
    column.key = read_string(c.member("key"));
    column.label = read_string(c.member("label"));
    const auto kind = schema::parse_column_kind(read_string(c.member("kind")));
    known_kind.push_back(kind.has_value());
    column.kind = kind.value_or(schema::ColumnKind::text);
    column.role = schema::parse_column_role(read_string(c.member("role"))).value_or(schema::ColumnRole::detail);
    column.description = read_string(c.member("description"));
    column.spread_key = read_string(c.member("spread_key"));
    // Added later: files of earlier builds have none.
    if (c.value().is_object() && c.value().contains("samples_key")) column.samples_key = read_string(c.member("samples_key"));
    const JsonAt csv = c.member("csv");
    column.csv.decimals = read_integer<int>(csv.member("decimals"));
    column.csv.trim_zeros = read_bool(csv.member("trim_zeros"));
    column.csv.significant_digits = read_integer<int>(csv.member("significant_digits"));
    table.columns.push_back(std::move(column));
  }
  const JsonAt rows = at.member("rows");
  for (size_t r = 0; r < rows.array_size(); ++r) {
    const JsonAt row = rows.element(r);
    std::vector<Value> values;
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const JsonAt cell = row.member(table.columns[c].key);
      values.push_back(known_kind[c] ? value_from_json(cell, table.columns[c].kind) : any_value_from_json(cell));
    }
    table.rows.push_back(std::move(values));
  }
  return table;
}

}  // namespace stepscope
