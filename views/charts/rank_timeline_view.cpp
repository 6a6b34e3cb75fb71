#include "charts/rank_timeline_view.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QFontMetrics>
#include <QLegendMarker>
#include <QLineSeries>
#include <QToolTip>
#include <array>
#include <cmath>

#include "charts/chart_legend.h"
#include "charts/chart_overlay.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"

namespace stepscope::views {

namespace {

constexpr double kLaneFill = 0.7;  // of a lane's height; the rest separates lanes
// Spans shorter than this share of the axis are drawn this wide, so a 50-us all-reduce in a
// 500-ms step still shows (about a pixel at common widths); tooltips keep the exact times.
constexpr double kMinimumShare = 1e-3;

}  // namespace

RankTimelineView::RankTimelineView(QWidget* parent) : XZoomChartView(new QChart, parent) {
  QChart& c = *chart();
  style_chart(c, tr("Overlap of compute and communication"));
  time_axis_ = new NiceValueAxis(tr("time from the step's start (ms)"), 8);
  lane_axis_ = new QCategoryAxis;
  style_axis(*lane_axis_, QString());
  lane_axis_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
  lane_axis_->setGridLineVisible(false);
  c.addAxis(time_axis_, Qt::AlignBottom);
  c.addAxis(lane_axis_, Qt::AlignLeft);
  overlay_ = new ChartOverlayItem(c, ChartOverlayItem::kAboveSeries, [this](QPainter& p, const QRectF& plot) {
    // What was left out (chart_limits.h) in the box every chart uses; else why nothing is drawn.
    if (data_.note.isEmpty()) paint_plot_note(p, plot, data_.message);
    paint_span_starts(p, plot);
    paint_corner_note(p, plot, data_.note);
  });
  setZoomAxis(time_axis_);
  connect(&c, &QChart::plotAreaChanged, this, [this] { label_lanes(false); });
  connect(this, &XZoomChartView::visibleRangeChanged, this, [this] { overlay_->update(); });
  setData({});
}

QStringList RankTimelineView::axisLabels() const { return lane_axis_->categoriesLabels(); }

void RankTimelineView::label_lanes(bool force) {
  const int lanes = static_cast<int>(data_.lanes.size()), ranks = static_cast<int>(data_.ranks.size());
  const double lane_height = chart()->plotArea().height() / std::max(1, lanes);
  // Qt Charts elides a category's label well before its span is a line of text high: measured
  // with 8 ranks, labels needed 18-22 px each at a 14 px font. Ask for 1.6 lines.
  const double label_height = 1.6 * QFontMetrics(lane_axis_->labelsFont()).height();
  // Lanes a label spans: 1 where a lane's label fits, else 2 (a rank), 4 (two ranks), ...
  int span = 1;
  if (ranks > 1 && 2 * ranks == lanes) {
    while (span < lanes && span * lane_height < label_height) span *= 2;
  }
  if (!force && span == lanes_per_label_) return;
  lanes_per_label_ = span;
  for (const QString& label : lane_axis_->categoriesLabels()) lane_axis_->remove(label);
  // Lanes read top-down as listed: lane i spans values [lanes-1-i, lanes-i]; rank r's two lanes
  // [lanes-2r-2, lanes-2r]. Categories go in bottom-up.
  lane_axis_->setStartValue(0);
  if (span == 1) {
    for (int v = 0; v < lanes; ++v) lane_axis_->append(data_.lanes[lanes - 1 - v], v + 1);
    return;
  }
  const int per_label = span / 2;  // ranks
  const int groups = (ranks + per_label - 1) / per_label;
  for (int g = groups - 1; g >= 0; --g) {
    const int first = g * per_label, last = std::min(ranks, first + per_label) - 1;
    const int a = data_.ranks[static_cast<size_t>(first)], b = data_.ranks[static_cast<size_t>(last)];
    lane_axis_->append(first == last ? tr("rank %1").arg(a) : tr("ranks %1-%2").arg(a).arg(b), lanes - 2 * first);
  }
}

int RankTimelineView::laneAt(double y) const {
  const int lanes = static_cast<int>(data_.lanes.size());
  if (!(y >= 0) || y >= lanes) return -1;
  return lanes - 1 - static_cast<int>(std::floor(y));
}

QPointF RankTimelineView::lanePosition(int lane, double ms) const {
  const auto series = chart()->series();
  const double y = static_cast<double>(data_.lanes.size()) - 1 - lane + 0.5;
  return chart()->mapToPosition(QPointF(ms / unit_.per_unit, y), series.isEmpty() ? nullptr : series.front());
}

// Overlapping all-reduces merge into one band: a thin white line where each span starts keeps
// the calls (and the phases) apart.
void RankTimelineView::paint_span_starts(QPainter& painter, const QRectF& plot) const {
  const auto lanes = static_cast<double>(data_.lanes.size());
  if (data_.spans.empty() || time_axis_->max() <= time_axis_->min()) return;
  const PlotMapping map{plot, time_axis_->min(), time_axis_->max(), 0, lanes};
  painter.setClipRect(plot);
  painter.setPen(QPen(Qt::white, 1));
  painter.setRenderHint(QPainter::Antialiasing, false);
  for (const auto& span : data_.spans) {
    const double bottom = lanes - 1 - span.lane + (1 - kLaneFill) / 2;
    const double x = map.x(span.start_ms / unit_.per_unit);  // the axis is in its unit
    painter.drawLine(QPointF(x, map.y(bottom)), QPointF(x, map.y(bottom + kLaneFill)));
  }
}

void RankTimelineView::setData(RankTimelineData data) {
  data_ = std::move(data);
  if (data_.message.isEmpty() && data_.spans.empty()) data_.message = tr("No overlap picture: no spans recorded");
  QChart& c = *chart();
  c.removeAllSeries();
  const int lanes = static_cast<int>(data_.lanes.size());
  label_lanes(true);
  lane_axis_->setRange(0, std::max(1, lanes));
  // The axis in the unit the step's length reads in (ms, or s for a long CPU step); the
  // view's extents and ranges stay in ms (XZoomChartView), the series in the axis unit.
  unit_ = duration_axis_unit(data_.end_ms);
  time_axis_->setTitleText(unit_.title(tr("time from the step's start")));
  setAxisUnitScale(unit_.per_unit);
  setExtent(0, data_.end_ms > 0 ? nice_ceiling(data_.end_ms, 8) : 1.0);
  c.setTitle(data_.title.isEmpty() ? tr("Overlap of compute and communication") : data_.title);

  const double minimum = data_.end_ms * kMinimumShare;
  std::array<bool, kTimelineCategoryCount> in_legend{};
  for (const TimelineBand& band : timeline_bands(data_)) {
    const double bottom = lanes - 1 - band.lane + (1 - kLaneFill) / 2, top = bottom + kLaneFill;
    auto* area = new QAreaSeries;
    auto* upper = new QLineSeries(area);
    auto* lower = new QLineSeries(area);
    QList<QPointF> up, low;
    up.reserve(static_cast<qsizetype>(band.intervals.size() * 4));
    low.reserve(up.capacity());
    for (auto [start, end] : band.intervals) {
      end = std::max(end, start + minimum);
      // A rectangle in the upper line; between rectangles it runs on the lower line (no area).
      start /= unit_.per_unit;
      end /= unit_.per_unit;
      up << QPointF(start, bottom) << QPointF(start, top) << QPointF(end, top) << QPointF(end, bottom);
      low << QPointF(start, bottom) << QPointF(start, bottom) << QPointF(end, bottom) << QPointF(end, bottom);
    }
    upper->replace(up);
    lower->replace(low);
    area->setUpperSeries(upper);
    area->setLowerSeries(lower);
    const QColor color = timeline_category_color(band.category);
    area->setName(timeline_category_name(band.category));
    area->setColor(color);
    area->setPen(Qt::NoPen);  // an outline would also run along the lane between rectangles
    c.addSeries(area);
    area->attachAxis(time_axis_);
    area->attachAxis(lane_axis_);
    auto& shown = in_legend[static_cast<size_t>(band.category)];
    show_in_legend(c, area, !shown);
    shown = true;
    connect(area, &QAreaSeries::hovered, this, [this](const QPointF& at, bool on) {
      if (!on) return QToolTip::hideText();
      const int lane = laneAt(at.y());
      if (lane < 0) return;
      const QStringList names = spans_at(data_, lane, at.x() * unit_.per_unit, data_.end_ms * kMinimumShare);
      if (!names.isEmpty()) QToolTip::showText(QCursor::pos(), data_.lanes[lane] + QStringLiteral("\n") + names.join('\n'), this);
    });
  }
  overlay_->update();
}

}  // namespace stepscope::views
