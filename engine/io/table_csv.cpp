#include "io/table_csv.h"

#include "io/csv_writer.h"
#include "schema/value_format.h"

namespace stepscope {

std::vector<std::string> csv_header(const std::vector<schema::Column>& columns) {
  std::vector<std::string> header;
  header.reserve(columns.size());
  for (const auto& c : columns) header.push_back(c.key);
  return header;
}

std::vector<std::string> csv_row(const std::vector<schema::Column>& columns, const std::vector<schema::Value>& values) {
  std::vector<std::string> row;
  row.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) row.push_back(schema::csv_text(values[i], columns[i].csv));
  return row;
}

void write_table_csv(std::ostream& out, const schema::Table& table) {
  CsvWriter csv(out);
  csv.write_row(csv_header(table.columns));
  for (const auto& row : table.rows) csv.write_row(csv_row(table.columns, row));
}

}  // namespace stepscope
