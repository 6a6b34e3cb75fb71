#pragma once

#include <ostream>

#include "schema/table.h"

namespace stepscope::cli {

// A fixed-width view of a result table for people reading a terminal: the columns a table
// shows by default (not the details files keep), formatted as the app shows them; note
// columns (messages) go on a line of their own under their row.
void print_table(std::ostream& out, const schema::Table& table);

}  // namespace stepscope::cli
