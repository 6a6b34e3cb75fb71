// The total time of every measured step, one line per benchmark configuration: warm-up
// left-overs, drift and outliers that a mean hides.
#pragma once

#include <QChartView>

#include "charts/bench_chart_data.h"


namespace stepscope::views {

class ChartOverlayItem;
class NiceValueAxis;

class StepTimeChartView : public QChartView {
  Q_OBJECT
 public:
  explicit StepTimeChartView(QWidget* parent = nullptr);

  // Replaces every line (the old series are deleted).
  void setLines(std::vector<StepLine> lines);
  void setResults(const std::vector<BenchResult>& results) { setLines(build_step_lines(results)); }
  const std::vector<StepLine>& lines() const { return lines_; }

 private:
  std::vector<StepLine> lines_;
  NiceValueAxis* step_axis_ = nullptr;
  NiceValueAxis* time_axis_ = nullptr;
  ChartOverlayItem* note_ = nullptr;
};

}  // namespace stepscope::views
