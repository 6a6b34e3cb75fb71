#include "charts/chart_style.h"

#include <QChartView>

#include <QApplication>
#include <QChart>
#include <QGraphicsLayout>
#include <algorithm>
#include <cmath>

#include "charts/nice_value_axis.h"

namespace stepscope::views {

double nice_tick_interval(double span, int target_ticks) {
  if (!(span > 0) || !std::isfinite(span)) return 1.0;
  const double target = std::max(target_ticks, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(span / target)));
  // The step (1, 2, 2.5 or 5 times a power of ten) whose tick count is nearest the target;
  // on a tie the larger step, for fewer labels.
  double best = 10 * magnitude;
  for (double nice : {5.0, 2.5, 2.0, 1.0}) {
    const double step = nice * magnitude;
    if (std::abs(span / step - target) < std::abs(span / best - target)) best = step;
  }
  return best;
}

QString tick_label_format(double interval) {
  // The fewest decimals that write every multiple of the interval exactly (0.25: two).
  int decimals = 0;
  if (interval > 0) {
    while (decimals < 9) {
      const double scaled = interval * std::pow(10.0, decimals);
      if (std::abs(scaled - std::round(scaled)) < 1e-6 * scaled) break;
      ++decimals;
    }
  }
  return QStringLiteral("%.%1f").arg(decimals);
}

double nice_ceiling(double value, int target_ticks) {
  if (!(value > 0)) return 1.0;
  const double step = nice_tick_interval(value, target_ticks);
  return std::ceil(value / step - 1e-9) * step;
}

void style_chart(QChart& chart, const QString& title) {
  // The theme first: setting it later resets fonts and colours.
  chart.setTheme(QChart::ChartThemeLight);
  chart.setAnimationOptions(QChart::NoAnimation);
  chart.setBackgroundRoundness(0);
  chart.setBackgroundBrush(Qt::white);
  chart.setMargins(QMargins(6, 6, 6, 6));
  chart.layout()->setContentsMargins(0, 0, 0, 0);  // no frame of window colour around the chart
  QFont title_font = QApplication::font();
  title_font.setPointSizeF(title_font.pointSizeF() + 2);
  title_font.setBold(true);
  chart.setTitleFont(title_font);
  chart.setTitle(title);
  chart.legend()->setAlignment(Qt::AlignBottom);
  chart.legend()->setFont(QApplication::font());
  chart.legend()->setShowToolTips(true);  // a truncated legend entry shows in full on hover
  // A label the legend must shorten is whole in its tooltip.
  chart.legend()->setShowToolTips(true);
  // Value axes keep as many ticks as their length can label.
  QObject::connect(&chart, &QChart::plotAreaChanged, &chart, [&chart](const QRectF& area) {
    for (QAbstractAxis* axis : chart.axes()) {
      if (auto* nice = dynamic_cast<NiceValueAxis*>(axis)) {
        nice->fitTicksToLength(axis->orientation() == Qt::Horizontal ? area.width() : area.height(), axis->orientation());
      }
    }
  });
}

QFont annotation_font() {
  QFont font = QApplication::font();
  font.setPointSizeF(font.pointSizeF() - 1);
  return font;
}

void style_axis(QAbstractAxis& axis, const QString& title) {
  QFont title_font = QApplication::font();
  title_font.setBold(true);
  axis.setTitleFont(title_font);
  axis.setTitleText(title);
  axis.setLabelsFont(QApplication::font());
  axis.setGridLineColor(QColor(0xE0E0E0));
  axis.setLinePenColor(QColor(0x808080));
}

void allow_small(QChartView& view) { view.setMinimumSize(280, 200); }

}  // namespace stepscope::views
