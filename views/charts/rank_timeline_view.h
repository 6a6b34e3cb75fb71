// The overlap picture: per rank a compute lane and a communication lane on a shared ms axis,
// filled where spans ran (one area series per lane and category: a few dozen series however
// many spans), span names in the tooltip, a note in the plot when there is nothing to draw.
// Time zooms and pans (XZoomChartView): a 50-µs all-reduce in a 500-ms step is a sliver until
// one zooms in on it.
#pragma once

#include "charts/axis_unit.h"
#include "charts/x_zoom_chart_view.h"

#include "charts/rank_timeline_data.h"

class QCategoryAxis;

namespace stepscope::views {

class ChartOverlayItem;
class NiceValueAxis;

class RankTimelineView : public XZoomChartView {
  Q_OBJECT
 public:
  explicit RankTimelineView(QWidget* parent = nullptr);

  void setData(RankTimelineData data);
  const RankTimelineData& data() const { return data_; }
  // What the plot says instead of a picture ("" when it draws spans).
  QString message() const { return data_.message; }
  // The lane axis' labels, bottom to top: a label a lane ("rank 0 comm"), or, where the lanes
  // are too thin for their labels (Qt Charts would elide each to "..."; 8 ranks in a laptop's
  // tab), one a rank ("rank 0") over its two lanes, which their colours tell apart, or one a
  // group of ranks ("ranks 0-1").
  QStringList axisLabels() const;
  // The lane a value-space y falls in (-1 outside), for hover and tests.
  int laneAt(double y) const;
  // Scene position of (ms, middle of `lane`), for tests.
  QPointF lanePosition(int lane, double ms) const;

 private:
  void paint_span_starts(QPainter& painter, const QRectF& plot) const;
  // The lane axis' categories for the plot's height now; `force`: even if the choice is unchanged.
  void label_lanes(bool force);

  RankTimelineData data_;
  NiceValueAxis* time_axis_ = nullptr;
  AxisUnit unit_ = duration_axis_unit(0);  // of the time axis: ms, or s for a step of seconds
  QCategoryAxis* lane_axis_ = nullptr;
  int lanes_per_label_ = 1;
  ChartOverlayItem* overlay_ = nullptr;
};

}  // namespace stepscope::views
