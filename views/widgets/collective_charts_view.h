// The collective benchmark's chart (the Collectives tab, above its table): bus bandwidth
// against size, log-log, one line per collective, world size and element type, drawn from
// the "collective" table it is given. Its form and table are the experiment's ExperimentView's.
#pragma once

#include "widgets/result_view.h"

namespace stepscope::views {

class SweepChartView;

class CollectiveChartsView : public ResultView {
  Q_OBJECT

 public:
  explicit CollectiveChartsView(QWidget* parent = nullptr);

  void clear() override;
  // Draws the "collective" table among `tables`; others are left alone.
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override { return {}; }
  std::vector<NamedChart> charts() const override;

  const SweepChartView& chart() const { return *chart_; }

 private:
  SweepChartView* chart_;
};

}  // namespace stepscope::views
