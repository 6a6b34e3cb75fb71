// Mean step time across a sweep: one line per configuration family against model size or
// context length, on a linear or logarithmic time axis; configurations that ran out of memory
// or failed are marked on the x axis with their status. Other sweeps (attention's time and
// memory against sequence length) draw through it with their own titles and a log x axis.
#pragma once

#include <QChartView>

#include "charts/sweep_chart_data.h"

class QLogValueAxis;

namespace stepscope::views {

class ChartOverlayItem;
class NiceValueAxis;

class SweepChartView : public QChartView {
  Q_OBJECT
 public:
  explicit SweepChartView(QWidget* parent = nullptr) : SweepChartView(tr("Step time across the sweep"), parent) {}
  SweepChartView(const QString& title, QWidget* parent = nullptr);

  // Replaces every line (the old series are deleted).
  void setData(SweepChartData data);
  void setResults(const std::vector<BenchResult>& results, SweepAxis axis) {
    setData(build_sweep_chart_data(results, axis));
  }
  const SweepChartData& data() const { return data_; }
  // Times over orders of magnitude (a sweep over model sizes) read better on a log scale.
  void setLogScale(bool on);
  bool logScale() const { return log_scale_; }

 private:
  void showAxes();
  void paintFailures(QPainter& painter, const QRectF& plot) const;

  SweepChartData data_;
  bool log_scale_ = false;
  NiceValueAxis* x_axis_ = nullptr;
  QLogValueAxis* log_x_axis_ = nullptr;  // both x axes in the chart, one visible
  NiceValueAxis* linear_time_axis_ = nullptr;
  QLogValueAxis* log_time_axis_ = nullptr;  // both in the chart, one visible
  ChartOverlayItem* overlay_ = nullptr;
};

}  // namespace stepscope::views
