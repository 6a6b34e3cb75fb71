// Where a step's CPU time goes: a horizontal bar for the whole step split into its phases, and
// one per phase split into the ranges directly inside it (attention, feed-forward, LM head),
// in milliseconds per step, so that a phase's bar is as long as its part of the step's bar.
#pragma once

#include <QChartView>

#include "charts/range_phase_data.h"

class QBarCategoryAxis;
class QHorizontalStackedBarSeries;

namespace stepscope::views {

class ChartOverlayItem;
class NiceValueAxis;

class RangePhaseChartView : public QChartView {
  Q_OBJECT
 public:
  explicit RangePhaseChartView(QWidget* parent = nullptr);

  void setData(RangePhaseData data);
  const RangePhaseData& data() const { return data_; }

 private:
  RangePhaseData data_;
  QHorizontalStackedBarSeries* series_ = nullptr;  // its bar sets are replaced on each update
  QBarCategoryAxis* bar_axis_ = nullptr;
  NiceValueAxis* time_axis_ = nullptr;
  ChartOverlayItem* note_ = nullptr;
};

}  // namespace stepscope::views
