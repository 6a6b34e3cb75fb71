// The CPU time of each range of a profiled step (build_range_phase_data's rows): the Kernels
// tab's table where no GPU kernels were recorded. Rows follow the step's tree of ranges, a
// range's name indented under the range around it.
#pragma once

#include <vector>

#include "charts/range_phase_data.h"
#include "models/keyed_table_model.h"

namespace stepscope::views {

class RangeTimeModel : public KeyedTableModel {
  Q_OBJECT

 public:
  enum Column { Range, Phase, CallsPerStep, TimePerStep, StepShare, PhaseShare, PerCall, Parent, ColumnCount };

  explicit RangeTimeModel(QObject* parent = nullptr);

  // A newer snapshot of the same ranges updates the rows in place; other ranges reset the table,
  // so that it keeps the tree's order.
  void set_rows(std::vector<RangeTimeRow> rows);
  const std::vector<RangeTimeRow>& rows() const { return rows_; }

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::vector<RangeTimeRow> rows_;
};

}  // namespace stepscope::views
