// Result rows and tables in JSON, from their columns: a row is an object keyed by column key
// (numbers exact, missing values null); a table carries its columns, so a file from a newer
// experiment still opens as a table.
#pragma once

#include <nlohmann/json.hpp>

#include "io/json_reader.h"
#include "schema/table.h"

namespace stepscope {

nlohmann::json row_to_json(const std::vector<schema::Column>& columns, const std::vector<schema::Value>& values);
// Every column must be present (null for missing); members not in `columns` are ignored.
// Throws JsonReadError naming the path.
std::vector<schema::Value> row_from_json(const JsonAt& at, const std::vector<schema::Column>& columns);

nlohmann::json table_to_json(const schema::Table& table);
schema::Table table_from_json(const JsonAt& at);

}  // namespace stepscope
