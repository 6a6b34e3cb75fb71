// Showing and hiding legend entries so that the live window shows them. Qt Charts (6.4) does
// not lay its legend out again when a marker's visibility changes: entries hidden at start and
// shown by the first run stay piled up at one spot with no room for their labels (one empty
// square), until a resize; exports resize, so they looked right. Every change goes through here.
#pragma once

#include <QString>

class QAbstractSeries;
class QChart;

namespace stepscope::views {

// The legend entries of `series` shown or hidden, and the legend laid out again.
void show_in_legend(QChart& chart, QAbstractSeries* series, bool visible);
// The entry of the bar set labelled `label` among `series`' entries.
void show_bar_set_in_legend(QChart& chart, QAbstractSeries* series, const QString& label, bool visible);

}  // namespace stepscope::views
