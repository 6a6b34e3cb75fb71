// A table of one range of a kernel profile, following the profile as newer snapshots of the
// same run replace it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <QStringList>

#include "models/keyed_table_model.h"
#include "profiling/kernel_profile.h"

namespace stepscope::views {

// Shows the measured window until set_range picks another range. A new profile updates the
// rows in place (KeyedTableModel); switching the range resets the table.
class RangeSummaryModel : public KeyedTableModel {
  Q_OBJECT

 public:
  // Copies `profile`.
  void set_profile(const profiling::KernelProfile& profile);
  // Shares it: what BenchResult::kernel_profile holds. nullptr: no profile, no rows.
  void set_profile(std::shared_ptr<const profiling::KernelProfile> profile);
  void set_range(const std::string& range);
  const std::string& range() const { return range_; }
  // The profile's range names, measured window first (for a combo box).
  QStringList ranges() const;

 signals:
  // ranges() changed: a newer profile brought a range, or another profile came.
  void ranges_changed();

 protected:
  using KeyedTableModel::KeyedTableModel;

  // The range shown; nullptr when the profile has no such range.
  const profiling::RangeKernelSummary* summary() const { return summary_; }
  // The rows a range gives, keyed so that a later snapshot's rows match them.
  virtual std::vector<Item> items_of(const profiling::RangeKernelSummary& summary) const = 0;

 private:
  static std::string measured_window();
  std::vector<Item> items_or_none(const profiling::RangeKernelSummary* summary) const;

  std::shared_ptr<const profiling::KernelProfile> profile_;
  const profiling::RangeKernelSummary* summary_ = nullptr;  // in *profile_
  std::string range_ = measured_window();
};

}  // namespace stepscope::views
