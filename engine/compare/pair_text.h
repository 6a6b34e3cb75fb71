// How a compared row is named in words, in the same form wherever runs are compared:
// "small, Context 128 → 256, Batch 4, fp32, train" (a text setting alone, others with their
// label; a changed setting as "A → B").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/row_pairing.h"
#include "schema/table.h"

namespace stepscope::compare {

// The identity of `pair`: A's row (B's where A has none), a changed setting as "128 → 256".
std::string identity_text(const schema::Table& a, const schema::Table& b, const schema::RowPair& pair);
// "Context 128 → 256, Precision fp32 → bf16"; "" without changes.
std::string changes_text(const schema::Table& a, const std::vector<schema::SettingChange>& changes);
// Why `side` ("A", "B") has no value in a measure of its row `row` (none: no such row), from the
// row's status: "B ran out of memory", "B failed", "A did not measure it".
std::string missing_reason(const schema::Table& table, std::optional<size_t> row, const std::string& side);

}  // namespace stepscope::compare
