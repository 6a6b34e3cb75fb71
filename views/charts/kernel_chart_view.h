// Where each step phase spends its GPU time: one horizontal bar per phase (and the whole
// step), split by kernel category in percent, in the categories' fixed colours.
#pragma once

#include <QChartView>

#include "charts/kernel_chart_data.h"

class QBarCategoryAxis;
class QHorizontalStackedBarSeries;

namespace stepscope::views {

class ChartOverlayItem;
class NiceValueAxis;

class KernelChartView : public QChartView {
  Q_OBJECT
 public:
  explicit KernelChartView(QWidget* parent = nullptr);

  void setData(KernelChartData data);
  void setProfile(const profiling::KernelProfile& profile) { setData(build_kernel_chart_data(profile)); }
  const KernelChartData& data() const { return data_; }

 private:
  KernelChartData data_;
  QHorizontalStackedBarSeries* series_ = nullptr;  // its bar sets are replaced on each update
  QBarCategoryAxis* bar_axis_ = nullptr;
  NiceValueAxis* share_axis_ = nullptr;
  ChartOverlayItem* note_ = nullptr;
};

}  // namespace stepscope::views
