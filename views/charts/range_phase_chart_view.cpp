#include "charts/range_phase_chart_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QToolTip>
#include <algorithm>

#include "charts/chart_colors.h"
#include "charts/chart_overlay.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"
#include "models/format.h"
#include "profiling/step_ranges.h"

namespace stepscope::views {

namespace {

constexpr double kNsPerMs = 1e6;

bool is_phase(const QString& range) {
  for (const char* phase : profiling::step_ranges::kPhases) {
    if (range == QLatin1String(phase)) return true;
  }
  return false;
}

}  // namespace

RangePhaseChartView::RangePhaseChartView(QWidget* parent) : QChartView(new QChart, parent) {
  allow_small(*this);
  setRenderHint(QPainter::Antialiasing);
  QChart& c = *chart();
  style_chart(c, tr("CPU time per step by range"));
  time_axis_ = new NiceValueAxis(tr("CPU time per step (ms)"), 5);
  bar_axis_ = new QBarCategoryAxis;
  style_axis(*bar_axis_, QString());
  bar_axis_->setGridLineVisible(false);
  c.addAxis(time_axis_, Qt::AlignBottom);
  c.addAxis(bar_axis_, Qt::AlignLeft);
  series_ = new QHorizontalStackedBarSeries;
  series_->setBarWidth(0.6);
  c.addSeries(series_);
  series_->attachAxis(time_axis_);
  series_->attachAxis(bar_axis_);
  // Below the bars, one row: a phase's ranges are many, and the bars need the width.
  c.legend()->setAlignment(Qt::AlignBottom);
  note_ = new ChartOverlayItem(c, ChartOverlayItem::kAboveSeries,
                               [this](QPainter& p, const QRectF& plot) { paint_plot_note(p, plot, data_.note); });
  // The exact time and share of a segment on hover.
  connect(series_, &QHorizontalStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet* set) {
    if (!on) return QToolTip::hideText();
    const auto position = series_->barSets().indexOf(set);
    if (position < 0 || static_cast<size_t>(position) >= data_.segments.size()) return;
    const int bar = static_cast<int>(data_.bars.size()) - 1 - index;  // the axis lists bars bottom-up
    if (bar < 0 || bar >= data_.bars.size()) return;
    const double ns = data_.segments[static_cast<size_t>(position)].ns_per_step[static_cast<size_t>(bar)];
    const double whole = data_.bar_ns_per_step[static_cast<size_t>(bar)];
    QString text = tr("%1 in %2: %3 per step (%4)")
                       .arg(set->label(), data_.bars[bar], format_duration_ns(ns),
                            format_percent(whole > 0 ? 100.0 * ns / whole : 0.0));
    if (set->label() == QLatin1String(kOutsideRanges)) text += tr("\nthe time no narrower range covers");
    QToolTip::showText(QCursor::pos(), text, this);
  });
  setData({});
}

void RangePhaseChartView::setData(RangePhaseData data) {
  data_ = std::move(data);
  series_->clear();  // deletes the old sets
  // Bottom-up on a vertical category axis: reverse, so the step reads at the top.
  QStringList bars = data_.bars;
  std::reverse(bars.begin(), bars.end());
  bar_axis_->clear();
  bar_axis_->append(bars);
  double widest = 0;
  std::vector<double> sums(static_cast<size_t>(bars.size()), 0.0);
  int range_index = 0;
  for (const auto& segment : data_.segments) {
    auto* set = new QBarSet(segment.range);
    // Phases in their own colours; the ranges inside a phase in the series colours the phases
    // do not use (Okabe-Ito's last five); the remainder grey.
    const QColor color = segment.range == QLatin1String(kOutsideRanges) ? QColor(0xBBBBBB)
                         : is_phase(segment.range)                      ? phase_color(segment.range)
                                                                        : series_color(3 + range_index++);
    set->setColor(color);
    set->setBorderColor(color.darker(120));
    for (auto ns = segment.ns_per_step.rbegin(); ns != segment.ns_per_step.rend(); ++ns) {
      sums[static_cast<size_t>(set->count())] += *ns / kNsPerMs;
      set->append(*ns / kNsPerMs);
    }
    series_->append(set);
  }
  for (double sum : sums) widest = std::max(widest, sum);
  time_axis_->setZeroBasedRange(widest);
  note_->update();
}

}  // namespace stepscope::views
