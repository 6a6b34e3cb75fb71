// The Sweep tab: step time against model size or context length, one line per mode and
// precision, with the sweep's table; out-of-memory configurations marked, not dropped.
#pragma once

#include "widgets/result_view.h"

class QCheckBox;
class QComboBox;

class QLabel;

namespace stepscope::views {

class BenchTableModel;
class SweepChartView;

class SweepView : public BenchResultsView {
  Q_OBJECT

 public:
  explicit SweepView(QWidget* parent = nullptr);
  void clear() override;
  void add_outcome(const RunOutcome& outcome) override;
  void add_outcomes(const std::vector<RunOutcome>& outcomes) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;

 private:
  void refresh();

  QComboBox* axis_;
  QCheckBox* log_scale_;
  SweepChartView* chart_;
  BenchTableModel* model_;
  QLabel* note_;
};

}  // namespace stepscope::views
