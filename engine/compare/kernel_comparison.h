// Kernel totals of two profiled runs of a configuration, like HTA's TraceDiff: per kernel name
// (full, demangled) its total time over the measured window in A and in B, the largest
// movers (|B - A|) first; a kernel one run lacks moves by its whole time.
#pragma once

#include <vector>

#include "compare/comparison_row.h"
#include "profiling/kernel_profile.h"

namespace stepscope::compare {

// The `table` of kernel-total rows (apart from a stored "kernels" table of an imported trace).
inline constexpr const char* kKernelTotals = "kernel totals";

// `pair` gives the rows their configuration, pairing, changes and statuses; none where either profile
// has no measured window (a CPU run records no kernels).
// |B - A|, a missing side counting as 0: a kernel only one run has moves by its whole time.
double kernel_movement(const ComparisonRow& row);

std::vector<ComparisonRow> compare_kernel_totals(const profiling::KernelProfile& a, const profiling::KernelProfile& b,
                                                 const ComparisonRow& pair);

}  // namespace stepscope::compare
