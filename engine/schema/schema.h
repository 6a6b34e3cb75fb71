// A result row type's columns, each with how to read it from a row and, where a row can be
// rebuilt from files, how to write it back. One declaration per result row.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "schema/column.h"
#include "schema/table.h"
#include "schema/value.h"

namespace stepscope::schema {

template <class Row>
struct Field {
  Column column;
  std::function<Value(const Row&)> get;
  // Null for columns derived from others (they are recomputed, not read back).
  std::function<void(Row&, const Value&)> set = {};
};

template <class Row>
struct Schema {
  std::string id;  // "bench", "precision.accumulate": names the table in run records
  std::vector<Field<Row>> fields;

  std::vector<Column> columns() const {
    std::vector<Column> out;
    out.reserve(fields.size());
    for (const auto& f : fields) out.push_back(f.column);
    return out;
  }
  std::vector<Value> values(const Row& row) const {
    std::vector<Value> out;
    out.reserve(fields.size());
    for (const auto& f : fields) out.push_back(f.get(row));
    return out;
  }
  Table table(const std::vector<Row>& rows) const {
    Table t{id, columns(), {}};
    t.rows.reserve(rows.size());
    for (const auto& row : rows) t.rows.push_back(values(row));
    return t;
  }
};

// Row `index` of `table` written back through the fields that can write (matched by key); a
// column the table lacks leaves its member at the Row's default. Throws what a setter throws
// (ConfigError for text it does not know).
template <class Row>
Row read_row(const Schema<Row>& schema, const Table& table, size_t index) {
  Row row{};
  for (const auto& f : schema.fields) {
    if (!f.set) continue;
    const int c = table.column_index(f.column.key);
    if (c >= 0 && static_cast<size_t>(c) < table.rows.at(index).size()) f.set(row, table.rows[index][static_cast<size_t>(c)]);
  }
  return row;
}

}  // namespace stepscope::schema
