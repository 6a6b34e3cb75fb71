// Hand-built kernel profiles for the kernel models' tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "profiling/kernel_profile.h"

namespace fixtures {

using stepscope::profiling::KernelCategory;
using stepscope::profiling::KernelProfile;
using stepscope::profiling::KernelStats;
using stepscope::profiling::RangeKernelSummary;

// A kernel whose statistics derive from instances and total time (the tests state the
// values they expect themselves).
inline KernelStats kernel(std::string name, std::string short_name, KernelCategory category, int64_t instances,
                          int64_t total_ns, double time_percent) {
  KernelStats k;
  k.name = std::move(name);
  k.short_name = std::move(short_name);
  k.category = category;
  k.instances = instances;
  k.total_ns = total_ns;
  k.mean_ns = static_cast<double>(total_ns) / static_cast<double>(instances);
  k.median_ns = k.mean_ns;
  k.min_ns = total_ns / instances / 2;
  k.max_ns = total_ns / instances * 2;
  k.stddev_ns = 0;
  k.time_percent = time_percent;
  k.instances_per_step = static_cast<double>(instances) / 2;  // two measured steps
  return k;
}

inline RangeKernelSummary range(std::string name, std::vector<KernelStats> kernels) {
  RangeKernelSummary summary;
  summary.range = std::move(name);
  for (const auto& k : kernels) summary.gpu_time_ns += k.total_ns;
  summary.kernels = std::move(kernels);
  return summary;
}

inline KernelProfile profile(std::vector<RangeKernelSummary> ranges) {
  KernelProfile p;
  p.ranges = std::move(ranges);
  p.measured_steps = 2;
  p.gpu_activity_recorded = true;
  return p;
}

}  // namespace fixtures
