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

}  // namespace stepscope::schema
