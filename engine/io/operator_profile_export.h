// A run's operator profile as CSV tables, in the columns of profiling/operator_stats_schema.h:
// one row per (range path, operator, input shapes), and one per kernel each launched.
#pragma once

#include <ostream>

#include "profiling/operator_profile.h"

namespace stepscope {

void write_operator_csv(std::ostream& out, const profiling::OperatorProfile& profile);
// The header only where no GPU activity was recorded.
void write_operator_kernel_csv(std::ostream& out, const profiling::OperatorProfile& profile);

}  // namespace stepscope
