// Any result table as RFC 4180 CSV: the column keys, then a row per result.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "schema/table.h"

namespace stepscope {

std::vector<std::string> csv_header(const std::vector<schema::Column>& columns);
std::vector<std::string> csv_row(const std::vector<schema::Column>& columns, const std::vector<schema::Value>& values);
void write_table_csv(std::ostream& out, const schema::Table& table);

}  // namespace stepscope
