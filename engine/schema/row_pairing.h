// Which row of one table goes with which row of another of the same schema, for comparing two
// runs: rows pair by their identity columns, and where a setting was changed between the runs
// (context 128 in A, 256 in B) rows still pair, the changed settings named.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "schema/table.h"

namespace stepscope::schema {

// An identity column whose value differs between the two rows of a pair.
struct SettingChange {
  size_t column = 0;  // in table A (B's column of the same key holds `b`)
  Value a, b;
};

// A row of A, of B, or of both; `changes` empty where the two rows are the same configuration.
struct RowPair {
  std::optional<size_t> a, b;
  std::vector<SettingChange> changes;
};

// Rows in A's order, then B's rows that paired with none. Rows of the same identity pair (rows
// repeating an identity in one table, in order). Where none does, a setting was changed between
// the runs: rows that differ in one identity column pair, the most common change first (a whole
// sweep run again at another context pairs row by row); then, where one row of each is left,
// those two, whatever differs. Where some do, the others are configurations one run has alone.
std::vector<RowPair> pair_rows(const Table& a, const Table& b);

// The settings that differ between the runs: each change once, in column order.
std::vector<SettingChange> distinct_changes(const std::vector<RowPair>& pairs);

}  // namespace stepscope::schema
