// Two run records compared: the step benchmark's configurations (and, where both runs
// profiled a configuration's kernels, their kernel totals), and every other experiment's table
// that both hold, rows paired by their identity (schema/row_pairing.h). Rows either run has
// alone are listed, never dropped. What `stepscope-cli compare` prints and gates on.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "compare/comparison_row.h"
#include "io/run_record_json.h"

namespace stepscope::compare {

// Two records that hold no results of the same kind (a bench run and an attention sweep).
class CompareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Comparison {
  // Top movers first: measures by |B / A - 1| (those missing a side after them), then kernel
  // totals by |B - A|, then the configurations only one run has.
  std::vector<ComparisonRow> rows;
  std::string changes;  // the settings that differ between the paired rows: "Context 128 → 256"
};

// Throws CompareError when the records share no kind of result.
Comparison compare_runs(const RunRecord& a, const RunRecord& b);

}  // namespace stepscope::compare
