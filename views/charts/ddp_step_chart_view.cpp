#include "charts/ddp_step_chart_view.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "charts/chart_colors.h"
#include "charts/chart_overlay.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"
#include "models/format.h"

namespace stepscope::views {

DdpStepChartView::DdpStepChartView(QWidget* parent) : QChartView(new QChart, parent) {
  allow_small(*this);
  setRenderHint(QPainter::Antialiasing);
  QChart& c = *chart();
  style_chart(c, tr("Step time by DDP row"));
  time_axis_ = new NiceValueAxis(tr("ms per step (slowest rank)"), 6);
  bar_axis_ = new QBarCategoryAxis;
  style_axis(*bar_axis_, QString());
  bar_axis_->setGridLineVisible(false);
  c.addAxis(time_axis_, Qt::AlignBottom);
  c.addAxis(bar_axis_, Qt::AlignLeft);
  series_ = new QHorizontalStackedBarSeries;
  series_->setBarWidth(0.6);
  for (size_t phase = 0; phase < kDdpPhaseCount; ++phase) {
    sets_[phase] = new QBarSet(ddp_phase_names()[phase]);
    const QColor color = ddp_phase_color(static_cast<DdpPhase>(phase));
    sets_[phase]->setColor(color);
    sets_[phase]->setBorderColor(color.darker(130));
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
    if (bar < 0 || bar >= data_.labels.size()) return;
    QToolTip::showText(QCursor::pos(),
                       QStringLiteral("%1 · %2: %3").arg(data_.labels[bar], set->label(), format_duration_ms(set->at(index))),
                       this);
  });
  setData({});
}

void DdpStepChartView::setData(DdpStepData data) {
  data_ = std::move(data);
  QStringList labels = data_.labels;
  std::reverse(labels.begin(), labels.end());  // the first row reads at the top
  bar_axis_->clear();
  bar_axis_->append(labels);
  for (size_t phase = 0; phase < kDdpPhaseCount; ++phase) {
    QList<qreal> values(data_.ms[phase].rbegin(), data_.ms[phase].rend());
    sets_[phase]->remove(0, sets_[phase]->count());
    sets_[phase]->append(values);
  }
  time_axis_->setZeroBasedRange(data_.max_ms * 1.05);
  overlay_->update();
}

void DdpStepChartView::paintOverlay(QPainter& painter, const QRectF& plot) const {
  if (data_.labels.isEmpty()) return paint_plot_note(painter, plot, tr("No DDP rows"));
  QFont font = QApplication::font();
  font.setItalic(true);
  painter.setFont(font);
  painter.setPen(failure_color());
  const int bars = static_cast<int>(data_.labels.size());
  for (int bar = 0; bar < bars; ++bar) {
    if (data_.failures[bar].isEmpty()) continue;
    const QPointF at = chart()->mapToPosition(QPointF(0, bars - 1 - bar), series_);
    // Elided to the plot: a long reason ("left out ...: step_ms 1e+308 ...") ends in "...", not mid-word.
    const QString text = painter.fontMetrics().elidedText(data_.failures[bar], Qt::ElideRight, static_cast<int>(plot.width() - 12));
    painter.drawText(QPointF(plot.left() + 6, at.y() + painter.fontMetrics().ascent() / 2.0), text);
  }
}

}  // namespace stepscope::views
