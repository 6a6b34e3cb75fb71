// Which operator launched which kernel, as a flat table for export: one row per kernel of
// each operator row of the profile (range path, operator, input shapes), with its launches
// and GPU time over the measured steps.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "models/table_model.h"
#include "profiling/operator_profile.h"

namespace stepscope::views {

// Empty for a profile without GPU activity (no kernels were recorded).
class OperatorKernelTableModel : public TableModel {
  Q_OBJECT

 public:
  enum Column { Range, Operator, InputShapes, Kernel, ShortName, Category, Launches, TotalGpu, ColumnCount };

  explicit OperatorKernelTableModel(QObject* parent = nullptr);
  // nullptr: no rows.
  void set_profile(std::shared_ptr<const profiling::OperatorProfile> profile);
  int rowCount(const QModelIndex& parent = {}) const override;

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::shared_ptr<const profiling::OperatorProfile> profile_;
  std::vector<std::pair<int, int>> rows_;  // (operator, kernel) indices into the profile
};

}  // namespace stepscope::views
