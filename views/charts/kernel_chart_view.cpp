#include "charts/kernel_chart_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "charts/chart_colors.h"
#include "charts/chart_overlay.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"
#include "models/format.h"

namespace stepscope::views {

KernelChartView::KernelChartView(QWidget* parent) : QChartView(new QChart, parent) {
  allow_small(*this);
  setRenderHint(QPainter::Antialiasing);
  QChart& c = *chart();
  style_chart(c, tr("GPU time by kernel category"));
  share_axis_ = new NiceValueAxis(tr("share of GPU time (%)"), 5);
  bar_axis_ = new QBarCategoryAxis;
  style_axis(*bar_axis_, QString());
  bar_axis_->setGridLineVisible(false);
  c.addAxis(share_axis_, Qt::AlignBottom);
  c.addAxis(bar_axis_, Qt::AlignLeft);
  series_ = new QHorizontalStackedBarSeries;
  series_->setBarWidth(0.6);
  c.addSeries(series_);
  series_->attachAxis(share_axis_);
  series_->attachAxis(bar_axis_);
  c.legend()->setAlignment(Qt::AlignRight);
  note_ = new ChartOverlayItem(c, ChartOverlayItem::kAboveSeries, [this](QPainter& p, const QRectF& plot) {
    paint_plot_note(p, plot, data_.note);
    paint_corner_note(p, plot, data_.left_out);
  });
  // The exact share and time of a segment on hover.
  connect(series_, &QHorizontalStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet* set) {
    if (!on) return QToolTip::hideText();
    const auto position = series_->barSets().indexOf(set);
    if (position < 0 || static_cast<size_t>(position) >= data_.categories.size()) return;
    const auto& shares = data_.categories[static_cast<size_t>(position)];
    const int bar = data_.bars.size() - 1 - index;  // the axis lists bars bottom-up
    if (bar < 0 || static_cast<size_t>(bar) >= shares.percent.size()) return;
    QToolTip::showText(QCursor::pos(), QStringLiteral("%1 in %2: %3 (%4)")
                                           .arg(set->label(), data_.bars[bar],
                                                format_percent(shares.percent[static_cast<size_t>(bar)]),
                                                format_duration_ns(static_cast<double>(shares.total_ns[static_cast<size_t>(bar)]))),
                       this);
  });
  setData({});
}

void KernelChartView::setData(KernelChartData data) {
  data_ = std::move(data);
  series_->clear();  // deletes the old sets
  // Bottom-up on a vertical category axis: reverse, so the first bar reads at the top.
  QStringList bars = data_.bars;
  std::reverse(bars.begin(), bars.end());
  bar_axis_->clear();
  bar_axis_->append(bars);
  double widest = 100;
  std::vector<double> sums(static_cast<size_t>(bars.size()), 0.0);
  for (const auto& shares : data_.categories) {
    auto* set = new QBarSet(QString::fromStdString(profiling::to_string(shares.category)));
    const QColor color = kernel_category_color(shares.category);
    set->setColor(color);
    set->setBorderColor(color.darker(120));
    for (auto p = shares.percent.rbegin(); p != shares.percent.rend(); ++p) {
      sums[static_cast<size_t>(set->count())] += *p;
      set->append(*p);
    }
    series_->append(set);
  }
  for (double sum : sums) widest = std::max(widest, sum);  // rounding may pass 100 a little
  share_axis_->setNiceRange(0, widest);
  note_->update();
}

}  // namespace stepscope::views
