// The columns of a comparison, declared once: what `compare --csv` and `--json` write and the
// console shows (identity and measure columns; notes under their row).
#pragma once

#include "compare/comparison_row.h"
#include "compare/run_comparison.h"
#include "schema/schema.h"

namespace stepscope::compare {

const schema::Schema<ComparisonRow>& comparison_schema();
schema::Table comparison_table(const Comparison& comparison);

// The columns holding A, B, their spreads, B - A and the noise: numbers in the row's own unit
// (its "unit" column), which the console shows with that unit.
bool in_row_unit(const schema::Column& column);

}  // namespace stepscope::compare
