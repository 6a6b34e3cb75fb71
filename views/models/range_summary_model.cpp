#include "models/range_summary_model.h"

#include <utility>

#include "profiling/kernel_summary_builder.h"

namespace stepscope::views {

void RangeSummaryModel::set_profile(const profiling::KernelProfile& profile) {
  set_profile(std::make_shared<const profiling::KernelProfile>(profile));
}

void RangeSummaryModel::set_profile(std::shared_ptr<const profiling::KernelProfile> profile) {
  const QStringList before = ranges();
  const profiling::RangeKernelSummary* next = profile ? profiling::find_range(*profile, range_) : nullptr;
  update_items(items_or_none(next), [&] {
    profile_ = std::move(profile);
    summary_ = next;
  });
  if (ranges() != before) emit ranges_changed();
}

void RangeSummaryModel::set_range(const std::string& range) {
  if (range == this->range()) return;
  const profiling::RangeKernelSummary* next = profile_ ? profiling::find_range(*profile_, range) : nullptr;
  reset_items(items_or_none(next), [&] {
    range_ = range;
    summary_ = next;
  });
}

QStringList RangeSummaryModel::ranges() const {
  QStringList names;
  if (!profile_) return names;
  for (const auto& summary : profile_->ranges) names << QString::fromStdString(summary.range);
  return names;
}

// The engine's name, kept out of the header: the summary builder's header is heavier.
std::string RangeSummaryModel::measured_window() { return profiling::kMeasuredWindow; }

std::vector<KeyedTableModel::Item> RangeSummaryModel::items_or_none(const profiling::RangeKernelSummary* summary) const {
  return summary ? items_of(*summary) : std::vector<Item>{};
}

}  // namespace stepscope::views
