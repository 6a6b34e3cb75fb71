// The operator profile's tables, declared once for the CLI's CSVs (STEM.CONFIG.operators.csv
// and STEM.CONFIG.operator_kernels.csv) and whatever shows them as tables: per operator row
// (range path, operator, input shapes) its calls and CPU and GPU times, over the measured
// steps and per step; per kernel an operator launched, its launches and GPU time. Keys are
// CSV headers with the unit, as torch.profiler's key_averages and nsys name them ("Self CPU
// (ns)"); GPU times are missing (empty) where the profile recorded no GPU activity.
#pragma once

#include <string>
#include <vector>

#include "profiling/operator_profile.h"
#include "schema/schema.h"

namespace stepscope::profiling {

struct OperatorRow {
  const OperatorProfile* profile = nullptr;  // for the per-step figures and whether GPU times exist
  const OperatorStats* op = nullptr;
};

struct OperatorKernelRow {
  const OperatorProfile* profile = nullptr;
  const OperatorStats* op = nullptr;
  const OperatorKernel* kernel = nullptr;
};

// "forward/attention/softmax": the range path as one text, "" outside every range.
std::string range_path_text(const std::vector<std::string>& range_path);

// Range,Operator,Input Shapes,Calls,Calls/Step,Self CPU (ns),Total CPU (ns),Self GPU (ns),
// Total GPU (ns),Self CPU/Step (ns),Total CPU/Step (ns),Self GPU/Step (ns),Total GPU/Step (ns),
// Kernels
const schema::Schema<OperatorRow>& operator_stats_schema();
// Range,Operator,Input Shapes,Kernel,Short Name,Category,Launches,Launches/Step,
// Total Time (ns),Avg (ns),Time/Step (ns)
const schema::Schema<OperatorKernelRow>& operator_kernel_schema();

// The rows of a profile, in its order (an operator's kernels in theirs).
std::vector<OperatorRow> operator_rows(const OperatorProfile& profile);
std::vector<OperatorKernelRow> operator_kernel_rows(const OperatorProfile& profile);

}  // namespace stepscope::profiling
