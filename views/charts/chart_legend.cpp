#include "charts/chart_legend.h"

#include <QAbstractSeries>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>

namespace stepscope::views {

namespace {
// Set every time: a marker's isVisible() is its graphics item's, false while the chart is
// hidden whatever was asked, so it cannot tell whether anything changes.
void set_visible(QChart& chart, QLegendMarker* marker, bool visible) {
  marker->setVisible(visible);
  // What Qt leaves out: the legend's layout computes every entry's place and size anew.
  if (QGraphicsLayout* layout = chart.legend()->layout()) layout->invalidate();
}
}  // namespace

void show_in_legend(QChart& chart, QAbstractSeries* series, bool visible) {
  for (QLegendMarker* marker : chart.legend()->markers(series)) set_visible(chart, marker, visible);
}

void show_bar_set_in_legend(QChart& chart, QAbstractSeries* series, const QString& label, bool visible) {
  for (QLegendMarker* marker : chart.legend()->markers(series)) {
    if (marker->label() == label) set_visible(chart, marker, visible);
  }
}

}  // namespace stepscope::views
