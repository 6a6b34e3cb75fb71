// What Qt Charts cannot draw itself (phase bands, peak labels, error bars, "out of memory"
// labels) is painted by an overlay item inside the chart, in chart coordinates, so that it
// follows zoom, pan and resizing without any series per annotation.
#pragma once

#include <QGraphicsItem>
#include <QRectF>
#include <functional>

class QChart;

namespace stepscope::views {

class ChartOverlayItem : public QGraphicsItem {
 public:
  // `paint` gets the chart's current plot area; it maps values with chart.mapToPosition.
  using Painter = std::function<void(QPainter& painter, const QRectF& plot_area)>;
  // Z values among Qt Charts' own items (plot area 0, shades 1, grid 2, axes 3, series 4,
  // legend 5): below the grid and series, or above the series and below the legend.
  static constexpr qreal kBelowSeries = 1.5;
  static constexpr qreal kAboveSeries = 4.5;

  // Becomes a child of `chart` (deleted with it) and repaints when the plot area changes;
  // call update() after changing what `paint` draws or the axes' ranges.
  ChartOverlayItem(QChart& chart, qreal z, Painter paint);

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QChart& chart_;
  Painter paint_;
};

// Value -> chart position for linear axes: cheaper than QChart::mapToPosition for the
// thousands of bands an overlay may draw.
struct PlotMapping {
  QRectF plot;
  double x_from = 0, x_to = 1, y_from = 0, y_to = 1;

  double x(double value) const { return plot.left() + (value - x_from) / (x_to - x_from) * plot.width(); }
  double y(double value) const { return plot.bottom() - (value - y_from) / (y_to - y_from) * plot.height(); }
  QPointF map(const QPointF& value) const { return {x(value.x()), y(value.y())}; }
};

// A grey note in the middle of the plot, for charts without data ("no kernels recorded").
void paint_plot_note(QPainter& painter, const QRectF& plot_area, const QString& text);
// A note along the top of the plot, on a pale box over what is drawn, for what a chart left
// out ("1 point left out: ..."); nothing when `text` is empty.
void paint_corner_note(QPainter& painter, const QRectF& plot_area, const QString& text);

}  // namespace stepscope::views
