// What the kernel-category chart draws: for each step phase profiled (and the whole step),
// the share of its GPU time per kernel category. Plain data from a KernelProfile.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "profiling/kernel_profile.h"

namespace stepscope::views {

struct KernelCategoryShares {
  profiling::KernelCategory category = profiling::KernelCategory::other;
  std::vector<double> percent;    // per bar, of that range's GPU time
  std::vector<int64_t> total_ns;  // per bar
};

struct KernelChartData {
  QStringList bars;  // in reading order: "forward", "backward", "optimizer step", "whole step"
  std::vector<int64_t> gpu_time_ns;            // per bar
  std::vector<KernelCategoryShares> categories;  // all_kernel_categories() order, used ones only
  QString note;  // why there is nothing to show, when there is nothing
  QString left_out;  // bars left out because the chart cannot draw their shares, and why
};

// One bar per phase range the profile has (forward, backward, optimizer step) with GPU time;
// "whole step" (the measured window) follows when there is more than one, or alone when
// the profile has no phase range.
KernelChartData build_kernel_chart_data(const profiling::KernelProfile& profile);

}  // namespace stepscope::views
