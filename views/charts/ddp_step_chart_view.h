// The DDP tab's step chart: one horizontal bar per DDP row, its step split into
// forward, backward, exposed communication, optimizer and the rest; a row that did not run
// says so where its bar would be.
#pragma once

#include <QChartView>
#include <array>

#include "charts/ddp_chart_data.h"

class QBarCategoryAxis;
class QBarSet;
class QHorizontalStackedBarSeries;

namespace stepscope::views {

class ChartOverlayItem;
class NiceValueAxis;

class DdpStepChartView : public QChartView {
  Q_OBJECT
 public:
  explicit DdpStepChartView(QWidget* parent = nullptr);

  void setData(DdpStepData data);
  const DdpStepData& data() const { return data_; }
  const QBarSet& phaseSet(DdpPhase phase) const { return *sets_[static_cast<size_t>(phase)]; }

 private:
  void paintOverlay(QPainter& painter, const QRectF& plot) const;

  DdpStepData data_;
  QHorizontalStackedBarSeries* series_ = nullptr;
  std::array<QBarSet*, kDdpPhaseCount> sets_{};  // refilled, never replaced
  QBarCategoryAxis* bar_axis_ = nullptr;
  NiceValueAxis* time_axis_ = nullptr;
  ChartOverlayItem* overlay_ = nullptr;
};

}  // namespace stepscope::views
