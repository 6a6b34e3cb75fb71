#include "charts/memory_chart_view.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <algorithm>

#include "charts/chart_colors.h"
#include "charts/chart_legend.h"
#include "charts/chart_style.h"
#include "charts/memory_chart_painting.h"
#include "charts/nice_value_axis.h"

namespace stepscope::views {

namespace {
constexpr int kRefineDelayMs = 80;  // wheel zooming comes in bursts: rebuild once it pauses
constexpr double kHeadroom = 1.06;  // room above the highest point for its peak label
}  // namespace

MemoryChartView::MemoryChartView(QWidget* parent) : XZoomChartView(new QChart, parent) {
  QChart& c = *chart();
  style_chart(c, tr("Active memory timeline"));
  x_axis_ = new NiceValueAxis(x_unit_.title(tr("time")), 8);
  y_axis_ = new NiceValueAxis(y_unit_.name, 6);
  c.addAxis(x_axis_, Qt::AlignBottom);
  c.addAxis(y_axis_, Qt::AlignLeft);
  auto attach = [&](QAbstractSeries* series) {
    c.addSeries(series);
    series->attachAxis(x_axis_);
    series->attachAxis(y_axis_);
  };
  // Each area spans its own upper boundary and the one below (the first: the x axis). The
  // line series stay ours (QAreaSeries does not own them).
  for (const auto category : memory_stack_order()) {
    Layer layer;
    const QColor color = memory_category_color(category);
    for (size_t k = 0; k < kPieces; ++k) {
      auto* upper = new QLineSeries(this);
      auto* lower = layers_.empty() ? nullptr : new QLineSeries(this);
      auto* area = new QAreaSeries(upper, lower);
      area->setName(QString::fromStdString(profiling::to_string(category)));
      area->setBrush(color);
      area->setPen(Qt::NoPen);  // an outline would draw the pieces' seams
      attach(area);
      if (k > 0) {
        show_in_legend(c, area, false);
      }
      layer.pieces.push_back(area);
      layer.uppers.push_back(upper);
      layer.lowers.push_back(lower);
    }
    layers_.push_back(std::move(layer));
  }
  reserved_ = new QLineSeries;
  reserved_->setName(tr("reserved"));
  reserved_->setPen(QPen(QColor(0x303030), 1.5, Qt::DashLine));
  attach(reserved_);
  peaks_ = new QScatterSeries;
  peaks_->setName(tr("peaks"));
  peaks_->setMarkerShape(QScatterSeries::MarkerShapeCircle);
  peaks_->setMarkerSize(9);
  peaks_->setColor(Qt::white);
  peaks_->setBorderColor(Qt::black);
  attach(peaks_);
  // Lines and markers in the legend as drawn (dashed, circle); areas keep filled squares.
  for (QAbstractSeries* series : {static_cast<QAbstractSeries*>(reserved_), static_cast<QAbstractSeries*>(peaks_)}) {
    for (auto* marker : c.legend()->markers(series)) marker->setShape(QLegend::MarkerShapeFromSeries);
  }

  bands_ = new ChartOverlayItem(c, ChartOverlayItem::kBelowSeries,
                                [this](QPainter& p, const QRectF& plot) { paint_phase_bands(p, mapping(plot), data_.bands); });
  labels_ = new ChartOverlayItem(c, ChartOverlayItem::kAboveSeries,
                                 [this](QPainter& p, const QRectF& plot) {
                                   paint_peak_labels(p, mapping(plot), data_.peaks, hover_x_);
                                 });
  setZoomAxis(x_axis_);
  refine_timer_.setSingleShot(true);
  refine_timer_.setInterval(kRefineDelayMs);
  connect(&refine_timer_, &QTimer::timeout, this, &MemoryChartView::refineNow);
  connect(this, &XZoomChartView::visibleRangeChanged, this, [this] {
    bands_->update();
    labels_->update();
    if (timeline_) refine_timer_.start();
  });
  allow_small(*this);
  showExtents();  // first: the pieces' overlap depends on the visible range
  showSeries();
}

void MemoryChartView::setData(MemoryChartData data) {
  timeline_.reset();
  refine_timer_.stop();
  window_.reset();
  data_ = std::move(data);
  showExtents();  // first: the pieces' overlap depends on the visible range
  showSeries();
}

void MemoryChartView::setTimeline(std::shared_ptr<const profiling::MemoryTimeline> timeline) {
  auto data = timeline ? build_memory_chart_data(*timeline, max_points_) : MemoryChartData{};
  setTimeline(std::move(timeline), std::move(data));
}

void MemoryChartView::setTimeline(std::shared_ptr<const profiling::MemoryTimeline> timeline, MemoryChartData whole) {
  refine_timer_.stop();
  window_.reset();
  timeline_ = std::move(timeline);
  data_ = std::move(whole);
  showExtents();  // first: the pieces' overlap depends on the visible range
  showSeries();
}

void MemoryChartView::refineNow() {
  refine_timer_.stop();
  if (!timeline_) return;
  const auto window = visibleRange();
  if (window_ == window) return;  // already drawn
  // A window's width either side too, at the same density: panning or zooming out a little
  // shows points at once, not a blank until the next rebuild.
  const double margin = window.second - window.first;
  const auto [min, max] = extent();
  const bool whole = window.first - margin <= min && window.second + margin >= max;
  if (whole && !window_) return;  // the whole timeline is drawn already
  data_ = whole ? build_memory_chart_data(*timeline_, max_points_)
                : build_memory_chart_data(*timeline_, 3 * max_points_, window.first - margin, window.second + margin);
  window_ = whole ? std::nullopt : std::make_optional(window);
  showSeries();  // axes and legend stay: they describe the whole timeline
}

void MemoryChartView::showSeries() {
  const bool complete = data_.layers.size() == layers_.size();
  // The data in ms and MiB, the series in the axes' units.
  const double fx = 1 / axisUnitScale(), fy = yPerMib();
  const auto scaled = [fx, fy](const QList<QPointF>& points) {
    QList<QPointF> out;
    out.reserve(points.size());
    for (const QPointF& p : points) out.append(QPointF(p.x() * fx, p.y() * fy));
    return out;
  };
  // Two pixels at the current zoom (zooming in only widens it).
  const auto [shown_from, shown_to] = visibleRange();
  const double overlap = 2 * (shown_to - shown_from) / std::max(chart()->plotArea().width(), 200.0);
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    const QList<QPointF> none;
    const QList<QPointF>& upper = complete ? data_.layers[l].upper : none;
    const QList<QPointF>& lower = complete && l > 0 ? data_.layers[l - 1].upper : none;
    const auto ranges = split_into_pieces(upper, kPieces, overlap);
    for (size_t k = 0; k < kPieces; ++k) {
      const auto [from, to] = ranges[k];
      bool empty = true;  // a piece where the category holds nothing is not drawn at all
      for (auto i = from; i < to && empty; ++i) empty = lower.isEmpty() ? upper[i].y() == 0 : upper[i].y() == lower[i].y();
      layer.uppers[k]->replace(empty ? none : scaled(upper.mid(from, to - from)));
      if (layer.lowers[k]) layer.lowers[k]->replace(empty ? none : scaled(lower.mid(from, to - from)));
    }
  }
  reserved_->replace(scaled(data_.reserved));
  QList<QPointF> peaks;
  for (const auto& peak : data_.peaks) peaks.append(QPointF(peak.x_ms * fx, peak.y_mib * fy));
  peaks_->replace(peaks);
  hover_x_.reset();
  bands_->update();
  labels_->update();
}

void MemoryChartView::showExtents() {
  x_unit_ = duration_axis_unit(std::max(std::abs(data_.x_min), std::abs(data_.x_max)));
  x_axis_->setTitleText(x_unit_.title(tr("time")));
  setAxisUnitScale(x_unit_.per_unit);
  setExtent(data_.x_min, data_.x_max);
  y_unit_ = bytes_axis_unit(data_.y_max * kHeadroom * 1024.0 * 1024.0);
  // The unit alone: the chart's title says it is memory, and the timeline is often a short
  // strip above its tables, where "memory (MiB)" would be cut.
  y_axis_->setTitleText(y_unit_.name);
  y_axis_->setZeroBasedRange(data_.y_max * kHeadroom * yPerMib());
  // Categories never used, and lines without data, stay out of the legend.
  auto show_marker = [this](QAbstractSeries* series, bool visible) { show_in_legend(*chart(), series, visible); };
  for (size_t l = 0; l < layers_.size(); ++l) {
    show_marker(layers_[l].pieces.front(), l < data_.layers.size() && data_.layers[l].max_mib > 0);
  }
  show_marker(reserved_, !data_.reserved.isEmpty());
  show_marker(peaks_, !data_.peaks.empty());
}

PlotMapping MemoryChartView::mapping(const QRectF& plot) const {
  const auto [from, to] = visibleRange();
  return {plot, from, to, y_axis_->min() / yPerMib(), y_axis_->max() / yPerMib()};
}

std::optional<size_t> MemoryChartView::pointAt(const QPoint& pos) const {
  if (!chart()->plotArea().contains(mapToScene(pos))) return std::nullopt;
  return nearest_point(data_, valueAtX(pos.x()));
}

QString MemoryChartView::tooltipAt(const QPoint& pos) const {
  const auto index = pointAt(pos);
  return index ? memory_point_tooltip(data_, *index) : QString();
}

void MemoryChartView::hoverAt(const QPoint& pos, const QPoint& global_pos) {
  const auto index = pointAt(pos);
  if (index) {
    hover_x_ = data_.layers.front().upper[static_cast<qsizetype>(*index)].x();
    QToolTip::showText(global_pos, memory_point_tooltip(data_, *index), this);
  } else {
    hover_x_.reset();
    QToolTip::hideText();
  }
  labels_->update();
}

void MemoryChartView::leaveEvent(QEvent* event) {
  hover_x_.reset();
  labels_->update();
  QToolTip::hideText();
  XZoomChartView::leaveEvent(event);
}

}  // namespace stepscope::views
