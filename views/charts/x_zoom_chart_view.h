// A chart view whose x axis zooms and pans within the data's extent: mouse wheel zooms
// around the pointer, dragging pans, Shift+drag zooms to a rubber band, a double click shows
// everything again; keys too (+ and - zoom on the middle, Left and Right pan, 0 or Home
// resets). The y axis stays put, so heights compare across zoom levels.
#pragma once

#include <QChartView>
#include <utility>

namespace stepscope::views {

class NiceValueAxis;

class XZoomChartView : public QChartView {
  Q_OBJECT
 public:
  explicit XZoomChartView(QChart* chart, QWidget* parent = nullptr);

  // The axis zoomed and panned (a value axis of this view's chart).
  void setZoomAxis(NiceValueAxis* axis);
  // Data units per axis unit (1000 where the data is in ms and the axis shows s): extents,
  // ranges and values below are in data units; the series must hold x / this.
  void setAxisUnitScale(double data_per_axis_unit);
  double axisUnitScale() const { return per_axis_unit_; }
  // What a reset shows and zooming out stops at; shows all of it. An empty extent becomes
  // one unit wide.
  void setExtent(double min, double max);
  std::pair<double, double> extent() const { return {extent_min_, extent_max_}; }
  // Shows [from, to], moved and shrunk to fit inside the extent.
  void setVisibleRange(double from, double to);
  std::pair<double, double> visibleRange() const;
  void resetZoom();
  // Zooms by `factor` (> 1 in) keeping the value under view x-position `anchor_x` in place.
  void zoomAround(double factor, double anchor_x);

 signals:
  void visibleRangeChanged(double from, double to);  // data units

 protected:
  // The pointer moved over the view without dragging (pos in view coordinates); nothing by
  // default. Subclasses show hover information.
  virtual void hoverAt(const QPoint& pos, const QPoint& global_pos);
  // The x value at a view x-position, from the axis range and the plot area.
  double valueAtX(double view_x) const;

  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  NiceValueAxis* axis_ = nullptr;
  double extent_min_ = 0, extent_max_ = 1;
  double per_axis_unit_ = 1;
  bool panning_ = false;
  double pan_last_x_ = 0;
};

}  // namespace stepscope::views
