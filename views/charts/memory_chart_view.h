// The active memory timeline (after PyTorch memory_viz): bytes live per category as stacked
// areas over time, the allocator's reserved total dashed, phase bands behind, peak markers
// on top; zoom and pan on time (XZoomChartView), and hover text for the nearest point.
#pragma once

#include <QTimer>
#include <memory>
#include <optional>
#include <vector>

#include "charts/axis_unit.h"
#include "charts/chart_overlay.h"
#include "charts/memory_chart_data.h"
#include "charts/x_zoom_chart_view.h"

class QAreaSeries;
class QLineSeries;
class QScatterSeries;

namespace stepscope::views {

class NiceValueAxis;

class MemoryChartView : public XZoomChartView {
  Q_OBJECT
 public:
  // Enough for two points per pixel column of a wide screen.
  static constexpr size_t kDefaultMaxPoints = 4000;

  explicit MemoryChartView(QWidget* parent = nullptr);

  // Shows `data` as it is: zooming magnifies its points.
  void setData(MemoryChartData data);
  // Shows the timeline decimated to maxPoints(), and after each zoom or pan redraws the
  // visible window from the full-resolution points. Null clears the chart.
  void setTimeline(std::shared_ptr<const profiling::MemoryTimeline> timeline);
  // The same, with the whole timeline's chart data built already (off the GUI thread, from
  // build_memory_chart_data(*timeline, maxPoints())).
  void setTimeline(std::shared_ptr<const profiling::MemoryTimeline> timeline, MemoryChartData whole);
  void setMaxPoints(size_t max_points) { max_points_ = max_points; }
  size_t maxPoints() const { return max_points_; }

  const MemoryChartData& data() const { return data_; }
  // What hovering at `pos` (view coordinates) shows; empty outside the plot or without points.
  QString tooltipAt(const QPoint& pos) const;
  // Rebuilds the visible window now instead of after the short pause that follows a zoom.
  void refineNow();

 protected:
  void hoverAt(const QPoint& pos, const QPoint& global_pos) override;
  void leaveEvent(QEvent* event) override;

 private:
  void showSeries();   // data_ into the series
  void showExtents();  // axes and legend from data_
  std::optional<size_t> pointAt(const QPoint& pos) const;
  PlotMapping mapping(const QRectF& plot) const;  // the visible range onto the plot area
  // The series' and the axis' y per MiB of the data: the memory axis shows y_unit_.
  double yPerMib() const { return 1024.0 * 1024.0 / y_unit_.per_unit; }

  MemoryChartData data_;
  std::shared_ptr<const profiling::MemoryTimeline> timeline_;
  size_t max_points_ = kDefaultMaxPoints;
  QTimer refine_timer_;
  std::optional<std::pair<double, double>> window_;  // the visible range data_ was built for; none: all
  std::optional<double> hover_x_;  // the hovered point's x, marked by a line
  AxisUnit y_unit_ = bytes_axis_unit(0);
  AxisUnit x_unit_ = duration_axis_unit(0);  // the data's x is in ms

  // Each category's area is drawn as kPieces consecutive area series (one legend entry):
  // Qt's rasteriser slows down with the square of the edges crossing a scan line, and a
  // timeline of many steps crosses each line hundreds of times; in pieces it stays fast.
  static constexpr size_t kPieces = 32;
  struct Layer {
    std::vector<QAreaSeries*> pieces;
    std::vector<QLineSeries*> uppers, lowers;  // lowers null for the bottom layer
  };
  std::vector<Layer> layers_;  // memory_stack_order()
  QLineSeries* reserved_ = nullptr;
  QScatterSeries* peaks_ = nullptr;
  NiceValueAxis* x_axis_ = nullptr;
  NiceValueAxis* y_axis_ = nullptr;
  ChartOverlayItem* bands_ = nullptr;
  ChartOverlayItem* labels_ = nullptr;
};

}  // namespace stepscope::views
