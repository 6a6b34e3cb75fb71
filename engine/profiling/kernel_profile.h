// Kernel summaries of a profiled run, as plain data for exporters and views: the columns
// of Nsight Systems' cuda_gpu_kern_sum per CPU range, a category roll-up, and GPU busy/idle
// time per step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::profiling {

// Where GPU time goes, by what a kernel does (from its name; copies and sets by kind).
enum class KernelCategory {
  matrix_multiply,
  attention,
  softmax,
  normalisation,
  elementwise,
  reduction,
  optimizer,
  memory,
  communication,
  other,
};

struct KernelStats {
  std::string name;        // demangled, full
  std::string short_name;  // templates and arguments folded: "vectorized_elementwise_kernel"
  KernelCategory category = KernelCategory::other;
  int64_t instances = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;
  double median_ns = 0;   // exact up to a bounded sample per kernel, then from a uniform sample
  double stddev_ns = 0;   // sample standard deviation (n - 1)
  double time_percent = 0;        // of the range's GPU time
  double instances_per_step = 0;  // instances / measured steps
};

struct CategoryShare {
  KernelCategory category = KernelCategory::other;
  int64_t total_ns = 0;
  int64_t instances = 0;
  double percent = 0;  // of the range's GPU time
};

// Everything the GPU ran on behalf of one CPU range name (summed over its occurrences in
// the measured steps; nested ranges count towards their ancestors, as an NVTX filter does).
struct RangeKernelSummary {
  std::string range;  // "measured window" for the whole run, else the range's name
  int64_t gpu_time_ns = 0;
  std::vector<KernelStats> kernels;     // by total time, largest first
  std::vector<CategoryShare> categories;  // by total time, largest first
};

struct StepGpuUsage {
  int step = 0;
  int64_t span_ns = 0;   // first GPU activity start to last end within the step
  int64_t busy_ns = 0;   // union of kernel and copy intervals
  int64_t idle_ns = 0;   // span - busy: gaps between kernels
  int64_t kernels = 0;
  double mean_kernel_ns = 0;
  // True when the gaps outweigh the work: the step is bound by kernel launches, not the GPU.
  bool launch_bound = false;
};

// CPU-side time of a range name over the measured steps: what remains when no GPU
// activity can be recorded. Kept apart per enclosing range, so that the views can tell which
// phase a range ran in and stack a phase's ranges without counting nested ones twice.
struct RangeCpuTiming {
  std::string range;
  int64_t instances = 0;
  int64_t total_ns = 0;
  double mean_ns = 0;
  std::string parent;  // the enclosing range's name; "" at the top (step) or when unknown
};

struct KernelProfile {
  std::vector<RangeKernelSummary> ranges;  // "measured window" first
  std::vector<StepGpuUsage> steps;
  std::vector<RangeCpuTiming> cpu_ranges;
  int measured_steps = 0;
  uint64_t dropped_records = 0;
  uint64_t unattributed_kernels = 0;  // kernels and copies launched outside every range
  uint64_t untimed_records = 0;       // kernels and copies the source reported without timestamps
  bool gpu_activity_recorded = false;
  std::string source_message;  // e.g. why CUPTI could not run
};

// The summary of a range name, or nullptr when the profile has none.
const RangeKernelSummary* find_range(const KernelProfile& profile, const std::string& range);

std::string to_string(KernelCategory category);
std::vector<KernelCategory> all_kernel_categories();

}  // namespace stepscope::profiling
