// An operator profile as a flat table for export: one row per operator and input-shape
// signature in each range path, as the profile holds them (the Operators tab's tree regroups
// and filters them; an export keeps everything measured).
#pragma once

#include <memory>

#include "models/table_model.h"
#include "profiling/operator_profile.h"

namespace stepscope::views {

// Durations show in adaptive units and export in ns. Without GPU activity in the profile the
// GPU columns are missing ("-", exported empty), not zero.
class OperatorTableModel : public TableModel {
  Q_OBJECT

 public:
  enum Column { Range, Name, InputShapes, Calls, TotalCpu, SelfCpu, SelfGpu, TotalGpu, Kernels, ColumnCount };

  explicit OperatorTableModel(QObject* parent = nullptr);
  // nullptr: no rows.
  void set_profile(std::shared_ptr<const profiling::OperatorProfile> profile);
  int rowCount(const QModelIndex& parent = {}) const override;

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::shared_ptr<const profiling::OperatorProfile> profile_;
};

// The ranges open around a call, outermost first, as the engine writes them
// (profiling::range_path_text): "forward/attention/softmax", "" outside every range.
QString range_path_text(const profiling::OperatorStats& stats);

}  // namespace stepscope::views
