#include "charts/kernel_chart_data.h"
#include "charts/chart_limits.h"
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

  // A bar whose shares the chart cannot draw (a file's 1e308 %) is left out, and said so.
  LeftOut left_out;
  for (size_t bar = 0; bar < ranges.size(); ++bar) {
    double sum = 0;
    bool drawable = true;
    for (const auto& shares : data.categories) {
      sum += shares.percent[bar];
      const QString name = QStringLiteral("%1 share of %2 (%)")
                               .arg(QString::fromStdString(profiling::to_string(shares.category)), data.bars[static_cast<qsizetype>(bar)]);
      drawable = drawable && left_out.keep({{shares.percent[bar], name}});
      if (!drawable) break;
    }
    if (drawable && !left_out.keep({{sum, QStringLiteral("the %1 bar's total (%)").arg(data.bars[static_cast<qsizetype>(bar)])}})) {
      drawable = false;
    }
    if (!drawable) {
      for (auto& shares : data.categories) shares.percent[bar] = 0;
    }
  }
  data.left_out = left_out.note(QStringLiteral("bar"), QStringLiteral("bars"));

  if (data.bars.isEmpty()) {
    data.note = !profile.gpu_activity_recorded && !profile.source_message.empty()
                    ? QStringLiteral("No GPU kernels recorded: %1").arg(QString::fromStdString(profile.source_message))
                    : QStringLiteral("No GPU kernels recorded");
  }
  return data;
}

}  // namespace stepscope::views
