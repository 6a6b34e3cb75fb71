// Result rows and tables in JSON, from their columns: a row is an object keyed by column key
// (numbers exact, missing values null); a table carries its columns, so a file from a newer
// experiment still opens as a table.
#pragma once

#include <nlohmann/json.hpp>

#include "io/json_reader.h"
#include "schema/schema.h"
#include "schema/table.h"

namespace stepscope {

nlohmann::json row_to_json(const std::vector<schema::Column>& columns, const std::vector<schema::Value>& values);
// Every column must be present (null for missing); members not in `columns` are ignored.
// Throws JsonReadError naming the path.
std::vector<schema::Value> row_from_json(const JsonAt& at, const std::vector<schema::Column>& columns);

// Rebuilds `row` from a JSON row through the schema's setters; only columns with a setter
// are read (derived columns, and those newer than the file, may be absent). A value a setter
// refuses fails with its path.
template <class Row>
void read_stored_fields(const JsonAt& at, const schema::Schema<Row>& schema, Row& row) {
  std::vector<schema::Column> stored;
  std::vector<size_t> field_of;
  for (size_t c = 0; c < schema.fields.size(); ++c) {
    if (!schema.fields[c].set) continue;
    stored.push_back(schema.fields[c].column);
    field_of.push_back(c);
  }
  const auto values = row_from_json(at, stored);
  for (size_t k = 0; k < stored.size(); ++k) {
    try {
      schema.fields[field_of[k]].set(row, values[k]);
    } catch (const std::invalid_argument& e) {  // ConfigError from parse_precision and the like
      at.member(stored[k].key).fail(e.what());
    }
  }
}

nlohmann::json table_to_json(const schema::Table& table);
schema::Table table_from_json(const JsonAt& at);

}  // namespace stepscope
