// A run's kernel profile as CSV tables: per-range kernel summaries in the columns of Nsight
// Systems' cuda_gpu_kern_sum, the category roll-up, GPU busy/idle per step and CPU ranges.
#pragma once

#include <ostream>

#include "profiling/kernel_profile.h"

namespace stepscope {

// Range,Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),
// Instances/Step,Category,Name: one row per kernel of every range, in the profile's order.
// Percentages, means, medians and deviations with one decimal as nsys writes them;
// Instances/Step to three decimals at most. Names demangled in full unless short_names.
void write_kernel_summary_csv(std::ostream& out, const profiling::KernelProfile& profile, bool short_names = false);

// Range,Category,Time (%),Total Time (ns),Instances
void write_category_csv(std::ostream& out, const profiling::KernelProfile& profile);

// Step,Span (ns),Busy (ns),Idle (ns),Busy (%),Kernels,Avg Kernel (ns),Launch Bound
// Busy (%) is of the span (0.0 for an empty step); Launch Bound is "yes" or "no".
void write_step_gpu_usage_csv(std::ostream& out, const profiling::KernelProfile& profile);

// Range,Instances,Total Time (ns),Avg (ns)
void write_cpu_ranges_csv(std::ostream& out, const profiling::KernelProfile& profile);

}  // namespace stepscope
