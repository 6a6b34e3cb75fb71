#include "charts/chart_legend.h"

#include <QAbstractSeries>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QVariant>

namespace stepscope::views {

namespace {

// What was asked of a marker (its isVisible() cannot say; see below); unset: shown, as Qt makes it.
constexpr const char* kShown = "stepscopeShown";

// Set every time: a marker's isVisible() is its graphics item's, false while the chart is
// hidden whatever was asked, so it cannot tell whether anything changes.
void set_visible(QChart& chart, QLegendMarker* marker, bool visible) {
  marker->setVisible(visible);
  // What Qt leaves out: the legend's layout computes every entry's place and size anew.
  if (QGraphicsLayout* layout = chart.legend()->layout()) layout->invalidate();
}

// A legend of no entries takes no room from the plot (a small chart's axis titles need it).
void hide_if_empty(QChart& chart) {
  bool any = false;
  for (QLegendMarker* marker : chart.legend()->markers()) {
    const QVariant shown = marker->property(kShown);
    any = any || !shown.isValid() || shown.toBool();
  }
  chart.legend()->setVisible(any);
}

void show_marker(QChart& chart, QLegendMarker* marker, bool visible) {
  marker->setProperty(kShown, visible);
  set_visible(chart, marker, visible);
}

}  // namespace

void show_in_legend(QChart& chart, QAbstractSeries* series, bool visible) {
  for (QLegendMarker* marker : chart.legend()->markers(series)) show_marker(chart, marker, visible);
  hide_if_empty(chart);
}

void show_bar_set_in_legend(QChart& chart, QAbstractSeries* series, const QString& label, bool visible) {
  for (QLegendMarker* marker : chart.legend()->markers(series)) {
    if (marker->label() == label) show_marker(chart, marker, visible);
  }
  hide_if_empty(chart);
}

}  // namespace stepscope::views
