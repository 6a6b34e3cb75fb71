#include "charts/kernel_chart_data.h"
#include "profiling/step_ranges.h"


namespace stepscope::views {

namespace {
using profiling::step_ranges::kMeasuredWindow;
}  // namespace

KernelChartData build_kernel_chart_data(const profiling::KernelProfile& profile) {
  KernelChartData data;
  std::vector<const profiling::RangeKernelSummary*> ranges;
  for (const char* name : profiling::step_ranges::kPhases) {
    const auto* range = profiling::find_range(profile, name);
    if (range && range->gpu_time_ns > 0) {
      ranges.push_back(range);
      data.bars << QString::fromLatin1(name);
    }
  }
  const auto* whole = profiling::find_range(profile, kMeasuredWindow);
  if (whole && whole->gpu_time_ns > 0 && ranges.size() != 1) {
    ranges.push_back(whole);
    data.bars << QStringLiteral("whole step");
  }
  for (const auto* range : ranges) data.gpu_time_ns.push_back(range->gpu_time_ns);

  for (const auto category : profiling::all_kernel_categories()) {
    KernelCategoryShares shares{category, std::vector<double>(ranges.size(), 0.0),
                                std::vector<int64_t>(ranges.size(), 0)};
    bool used = false;
    for (size_t bar = 0; bar < ranges.size(); ++bar) {
      for (const auto& share : ranges[bar]->categories) {
        if (share.category != category) continue;
        shares.percent[bar] += share.percent;
        shares.total_ns[bar] += share.total_ns;
        used = used || share.total_ns > 0 || share.percent > 0;
      }
    }
    if (used) data.categories.push_back(std::move(shares));
  }

  if (data.bars.isEmpty()) {
    data.note = !profile.gpu_activity_recorded && !profile.source_message.empty()
                    ? QStringLiteral("No GPU kernels recorded: %1").arg(QString::fromStdString(profile.source_message))
                    : QStringLiteral("No GPU kernels recorded");
  }
  return data;
}

}  // namespace stepscope::views
