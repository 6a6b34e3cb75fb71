// A kernel summary row in the columns of Nsight Systems' cuda_gpu_kern_sum, declared once for
// the CLI's kernels CSV and the app's kernel table.
#pragma once

#include "profiling/kernel_profile.h"
#include "schema/schema.h"

namespace stepscope::profiling {

// Keys are nsys's headers ("Total Time (ns)"); the last column, "Name", is the full name.
const schema::Schema<KernelStats>& kernel_stats_schema();

}  // namespace stepscope::profiling
