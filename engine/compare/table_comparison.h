// Two tables of one schema compared row by row: rows paired by their identity columns
// (schema/row_pairing.h, also across one changed setting), one ComparisonRow per numeric
// measure column either row has a value in, and one per row that only one table has.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compare/comparison_row.h"
#include "schema/row_pairing.h"
#include "schema/table.h"

namespace stepscope::compare {

// How many measurements each row's means and spreads are over (a bench row's measured steps);
// empty, or none for a row, where the table does not say.
using SampleCounts = std::vector<std::optional<int64_t>>;

std::vector<ComparisonRow> compare_tables(const schema::Table& a, const schema::Table& b,
                                          const std::vector<schema::RowPair>& pairs, const SampleCounts& samples_a = {},
                                          const SampleCounts& samples_b = {});

// Every row of `table` as a row only one run has (`side`: only_a or only_b): a table the other
// run lacks is listed, not dropped.
std::vector<ComparisonRow> unpaired_rows(const schema::Table& table, Pairing side);

}  // namespace stepscope::compare
