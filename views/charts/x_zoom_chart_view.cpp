#include "charts/x_zoom_chart_view.h"

#include "charts/chart_style.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "charts/nice_value_axis.h"

namespace stepscope::views {

namespace {
constexpr double kWheelZoomPerNotch = 1.25;
constexpr double kKeyPanFraction = 0.2;  // of the visible span per arrow key
constexpr double kSmallestSpanFraction = 1e-7;  // of the extent: deeper zoom only shows rounding
}  // namespace

XZoomChartView::XZoomChartView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
  allow_small(*this);
  setRenderHint(QPainter::Antialiasing);
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);  // the keys zoom and pan once the chart is clicked or tabbed to
  setRubberBand(QChartView::NoRubberBand);  // on only while Shift+drag
}

void XZoomChartView::setZoomAxis(NiceValueAxis* axis) {
  axis_ = axis;
  connect(axis_, &QValueAxis::rangeChanged, this, [this](qreal from, qreal to) {
    emit visibleRangeChanged(from * per_axis_unit_, to * per_axis_unit_);
  });
}

void XZoomChartView::setAxisUnitScale(double data_per_axis_unit) {
  if (!(data_per_axis_unit > 0) || data_per_axis_unit == per_axis_unit_) return;
  const auto [from, to] = visibleRange();
  per_axis_unit_ = data_per_axis_unit;
  setVisibleRange(from, to);
}

void XZoomChartView::setExtent(double min, double max) {
  extent_min_ = min;
  extent_max_ = max > min ? max : min + 1;
  resetZoom();
}

std::pair<double, double> XZoomChartView::visibleRange() const {
  return axis_ ? std::make_pair(axis_->min() * per_axis_unit_, axis_->max() * per_axis_unit_)
               : std::make_pair(extent_min_, extent_max_);
}

void XZoomChartView::setVisibleRange(double from, double to) {
  if (!axis_) return;
  const double full = extent_max_ - extent_min_;
  const double span = std::clamp(to - from, full * kSmallestSpanFraction, full);
  from = std::clamp(from, extent_min_, extent_max_ - span);
  axis_->setNiceRange(from / per_axis_unit_, (from + span) / per_axis_unit_);
}

void XZoomChartView::resetZoom() { setVisibleRange(extent_min_, extent_max_); }

void XZoomChartView::zoomAround(double factor, double anchor_x) {
  if (!axis_ || !(factor > 0)) return;
  const double anchor = valueAtX(anchor_x);
  const auto [from, to] = visibleRange();
  setVisibleRange(anchor - (anchor - from) / factor, anchor + (to - anchor) / factor);
}

double XZoomChartView::valueAtX(double view_x) const {
  const QRectF plot = chart()->plotArea();
  const QPointF scene = mapToScene(QPoint(static_cast<int>(view_x), 0));
  const auto [from, to] = visibleRange();
  if (plot.width() <= 0) return from;
  return from + (scene.x() - plot.left()) / plot.width() * (to - from);
}

void XZoomChartView::hoverAt(const QPoint&, const QPoint&) {}

void XZoomChartView::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (notches == 0) return QChartView::wheelEvent(event);
  zoomAround(std::pow(kWheelZoomPerNotch, notches), event->position().x());
  event->accept();
}

void XZoomChartView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier)) {
    setRubberBand(QChartView::HorizontalRubberBand);  // QChartView draws it and zooms on release
    return QChartView::mousePressEvent(event);
  }
  if (event->button() == Qt::LeftButton && axis_) {
    panning_ = true;
    pan_last_x_ = event->position().x();
    setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QChartView::mousePressEvent(event);
}

void XZoomChartView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const double dx = valueAtX(event->position().x()) - valueAtX(pan_last_x_);
    pan_last_x_ = event->position().x();
    const auto [from, to] = visibleRange();
    setVisibleRange(from - dx, to - dx);
    event->accept();
    return;
  }
  QChartView::mouseMoveEvent(event);
  if (!(event->buttons() & Qt::LeftButton)) hoverAt(event->position().toPoint(), event->globalPosition().toPoint());
}

void XZoomChartView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_ && event->button() == Qt::LeftButton) {
    panning_ = false;
    unsetCursor();
    event->accept();
    return;
  }
  QChartView::mouseReleaseEvent(event);
  setRubberBand(QChartView::NoRubberBand);
}

void XZoomChartView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    resetZoom();
    event->accept();
    return;
  }
  QChartView::mouseDoubleClickEvent(event);
}

void XZoomChartView::keyPressEvent(QKeyEvent* event) {
  const auto [from, to] = visibleRange();
  const double middle_x = mapFromScene(chart()->plotArea().center()).x();
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomAround(kWheelZoomPerNotch, middle_x); break;
    case Qt::Key_Minus: zoomAround(1 / kWheelZoomPerNotch, middle_x); break;
    case Qt::Key_Left: setVisibleRange(from - (to - from) * kKeyPanFraction, to - (to - from) * kKeyPanFraction); break;
    case Qt::Key_Right: setVisibleRange(from + (to - from) * kKeyPanFraction, to + (to - from) * kKeyPanFraction); break;
    case Qt::Key_0:
    case Qt::Key_Home: resetZoom(); break;
    default: return QChartView::keyPressEvent(event);
  }
  event->accept();
}

}  // namespace stepscope::views
