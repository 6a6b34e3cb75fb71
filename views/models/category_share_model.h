// Where one range's GPU time goes, by kernel category.
#pragma once

#include <vector>

#include "models/range_summary_model.h"

namespace stepscope::views {

// One row per category the range ran, in the profile's order (largest first).
class CategoryShareModel : public RangeSummaryModel {
  Q_OBJECT

 public:
  enum Column { Category, TotalTime, Instances, Share, ColumnCount };

  explicit CategoryShareModel(QObject* parent = nullptr);

 protected:
  Cell cell(int row, int column) const override;
  std::vector<Item> items_of(const profiling::RangeKernelSummary& summary) const override;
};

}  // namespace stepscope::views
