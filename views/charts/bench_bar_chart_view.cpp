#include "charts/bench_bar_chart_view.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLegendMarker>
#include <QPainter>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "charts/chart_colors.h"
#include "charts/chart_legend.h"
#include "charts/chart_overlay.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"
#include "models/format.h"

namespace stepscope::views {

namespace {
constexpr double kBarWidth = 0.6;  // of a category's height
}  // namespace

BenchBarChartView::BenchBarChartView(QWidget* parent) : QChartView(new QChart, parent) {
  allow_small(*this);
  setRenderHint(QPainter::Antialiasing);
  QChart& c = *chart();
  style_chart(c, tr("Mean step time by configuration"));
  time_axis_ = new NiceValueAxis(time_unit_.title(tr("mean time per step")), 6);
  bar_axis_ = new QBarCategoryAxis;
  style_axis(*bar_axis_, QString());
  bar_axis_->setGridLineVisible(false);
  c.addAxis(time_axis_, Qt::AlignBottom);
  c.addAxis(bar_axis_, Qt::AlignLeft);
  series_ = new QHorizontalStackedBarSeries;
  series_->setBarWidth(kBarWidth);
  for (size_t phase = 0; phase < kBenchPhaseCount; ++phase) {
    const QString& name = bench_phase_names()[phase];
    sets_[phase] = new QBarSet(name);
    sets_[phase]->setColor(phase_color(name));
    sets_[phase]->setBorderColor(phase_color(name).darker(130));
    series_->append(sets_[phase]);
  }
  c.addSeries(series_);
  series_->attachAxis(time_axis_);
  series_->attachAxis(bar_axis_);
  overlay_ = new ChartOverlayItem(c, ChartOverlayItem::kAboveSeries,
                                  [this](QPainter& p, const QRectF& plot) { paintOverlay(p, plot); });
  connect(series_, &QHorizontalStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet* set) {
    if (!on) return QToolTip::hideText();
    const int bar = static_cast<int>(data_.labels.size()) - 1 - index;  // the axis lists bars bottom-up
    const auto phase = static_cast<size_t>(std::find(sets_.begin(), sets_.end(), set) - sets_.begin());
    for (const auto& error : data_.error_bars) {
      if (error.bar != bar || error.phase != phase) continue;
      QToolTip::showText(QCursor::pos(), QStringLiteral("%1 · %2: %3")
                                             .arg(data_.labels[bar], set->label(),
                                                  format_mean_std_ms(data_.mean_ms[phase][static_cast<size_t>(bar)],
                                                                     error.high - error.value)),
                         this);
    }
  });
  setData({});
}

void BenchBarChartView::setData(BenchBarData data) {
  data_ = std::move(data);
  QStringList labels = data_.labels;
  std::reverse(labels.begin(), labels.end());  // the first configuration reads at the top
  time_unit_ = duration_axis_unit(data_.max_ms);
  time_axis_->setTitleText(time_unit_.title(tr("mean time per step")));
  bar_axis_->clear();
  bar_axis_->append(labels);
  for (size_t phase = 0; phase < kBenchPhaseCount; ++phase) {
    QList<qreal> values;
    for (auto it = data_.mean_ms[phase].rbegin(); it != data_.mean_ms[phase].rend(); ++it) values.append(time_unit_.shown(*it));
    sets_[phase]->remove(0, sets_[phase]->count());
    sets_[phase]->append(values);
    show_bar_set_in_legend(*chart(), series_, sets_[phase]->label(), data_.phase_used[phase]);
  }
  time_axis_->setZeroBasedRange(time_unit_.shown(data_.max_ms * 1.05));
  overlay_->update();
}

QPointF BenchBarChartView::barPosition(int bar, double value_ms) const {
  const int row = static_cast<int>(data_.labels.size()) - 1 - bar;
  return chart()->mapToPosition(QPointF(time_unit_.shown(value_ms), row), series_);
}

void BenchBarChartView::paintOverlay(QPainter& painter, const QRectF& plot) const {
  if (data_.labels.isEmpty()) return paint_plot_note(painter, plot, tr("No benchmark results"));
  painter.setClipRect(plot.adjusted(-1, -1, 1, 1));
  // Error bars: a line over mean +/- std with end caps, in the segment's darker colour so a
  // whisker inside the next segment still shows.
  const double row_height = std::abs(barPosition(0, 0).y() - barPosition(1, 0).y());
  const double cap = row_height * kBarWidth / 4;
  for (const auto& error : data_.error_bars) {
    const QPointF low = barPosition(error.bar, error.low), high = barPosition(error.bar, error.high);
    painter.setPen(QPen(QColor(0x202020), 1.3));
    painter.drawLine(low, high);
    painter.drawLine(low - QPointF(0, cap), low + QPointF(0, cap));
    painter.drawLine(high - QPointF(0, cap), high + QPointF(0, cap));
  }
  // Configurations that did not run: an empty row says so.
  QFont font = QApplication::font();
  font.setItalic(true);
  painter.setFont(font);
  for (qsizetype bar = 0; bar < data_.failures.size(); ++bar) {
    if (data_.failures[bar].isEmpty()) continue;
    const QPointF at = barPosition(static_cast<int>(bar), time_axis_->min());
    const QRectF row(plot.left(), at.y() - 2 * cap, plot.width(), row_height * kBarWidth);
    painter.setPen(QPen(failure_color(), 1, Qt::DashLine));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(row.adjusted(1, 0, -1, 0));
    painter.setPen(failure_color());
    const QRectF room = row.adjusted(8, 0, -8, 0);
    painter.drawText(room, Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(QStringLiteral("\u2715 %1").arg(data_.failures[bar]), Qt::ElideRight,
                                                      static_cast<int>(room.width())));
  }
}

}  // namespace stepscope::views
