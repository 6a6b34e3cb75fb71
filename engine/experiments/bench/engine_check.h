// bench --check: the fused engine against the eager one, run from the same weights and batch.
#pragma once

#include <vector>

#include "runners/bench_types.h"

namespace stepscope {

// The largest |other[i] - reference[i]| / |reference[i]| over the steps both have; < 0 when
// there is no step to compare. A NaN loss on either side gives NaN (nothing is hidden).
double max_relative_loss_difference(const std::vector<double>& reference, const std::vector<double>& other);

// Whether `a` and `b` configure the same step apart from the engine and the attention it uses:
// the pairs --check compares.
bool same_step_but_engine(const BenchConfig& a, const BenchConfig& b);

// Sets `fused.max_loss_diff` from the first eager result among `earlier` that is its twin and
// measured the same number of losses.
void set_loss_difference(BenchResult& fused, const std::vector<BenchResult>& earlier);

}  // namespace stepscope
