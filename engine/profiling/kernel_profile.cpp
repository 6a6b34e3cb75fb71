#include "profiling/kernel_profile.h"

namespace stepscope::profiling {

const RangeKernelSummary* find_range(const KernelProfile& profile, const std::string& range) {
  for (const auto& summary : profile.ranges) {
    if (summary.range == range) return &summary;
  }
  return nullptr;
}

}  // namespace stepscope::profiling
