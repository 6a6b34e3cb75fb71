// Mean step time per benchmark configuration: one horizontal bar per configuration, split
// into forward, backward and optimizer step, a whisker of one standard deviation at the end
// of each segment, and a labelled gap where a configuration ran out of memory or failed.
#pragma once

#include <QChartView>
#include <array>

#include "charts/axis_unit.h"
#include "charts/bench_chart_data.h"

class QBarCategoryAxis;
class QBarSet;
class QHorizontalStackedBarSeries;

namespace stepscope::views {

class ChartOverlayItem;
class NiceValueAxis;

class BenchBarChartView : public QChartView {
  Q_OBJECT
 public:
  explicit BenchBarChartView(QWidget* parent = nullptr);

  void setData(BenchBarData data);
  void setResults(const std::vector<BenchResult>& results) { setData(build_bench_bar_data(results)); }
  const BenchBarData& data() const { return data_; }
  // Where the chart draws a bar's centre at `value_ms` (scene coordinates), for tests and
  // for the overlay.
  QPointF barPosition(int bar, double value_ms) const;

 private:
  void paintOverlay(QPainter& painter, const QRectF& plot) const;

  BenchBarData data_;
  QHorizontalStackedBarSeries* series_ = nullptr;
  std::array<QBarSet*, kBenchPhaseCount> sets_{};  // refilled, never replaced
  QBarCategoryAxis* bar_axis_ = nullptr;
  NiceValueAxis* time_axis_ = nullptr;
  AxisUnit time_unit_ = duration_axis_unit(0);  // the data is in ms
  ChartOverlayItem* overlay_ = nullptr;
};

}  // namespace stepscope::views
