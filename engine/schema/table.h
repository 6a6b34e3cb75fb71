// Rows of values under their columns: what any experiment's results become for files,
// terminals and views, whatever the row type behind them.
#pragma once

#include <string>
#include <vector>

#include "schema/column.h"
#include "schema/value.h"

namespace stepscope::schema {

struct Table {
  std::string schema;  // the id of the schema that made it
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;

  // The index of the column with `key`; -1 when there is none.
  int column_index(const std::string& key) const {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i].key == key) return static_cast<int>(i);
    }
    return -1;
  }
};

}  // namespace stepscope::schema
