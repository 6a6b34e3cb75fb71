// Shared look of the charts (fonts, margins, axes) and "nice" tick steps (1, 2 or 5 times a
// power of ten), so that every chart reads the same and axes never show 7.3125-ms ticks.
#pragma once

#include <QFont>
#include <QString>

class QAbstractAxis;
class QChart;

class QChartView;

namespace stepscope::views {

// The tick step, a nice number, giving about `target_ticks` intervals over `span`; 1 when
// span is not positive.
double nice_tick_interval(double span, int target_ticks);
// printf format for tick labels `interval` apart: just enough decimals to tell them apart.
QString tick_label_format(double interval);
// The smallest multiple of a nice step at or above `value` (for axes starting at 0).
double nice_ceiling(double value, int target_ticks);

// Light theme, no animation (charts are redrawn on every live update), bold title, legend
// at the bottom, readable fonts.
void style_chart(QChart& chart, const QString& title);
// Annotations drawn over a plot (band captions, peak labels, failure marks): a point smaller
// than the labels, so they do not compete with the data.
QFont annotation_font();
// Title and fonts of an axis of a styled chart.
void style_axis(QAbstractAxis& axis, const QString& title);
// A chart's view may be narrower and shorter than its labels ask (the plot shrinks, the tick
// labels thin out), so that a window with charts side by side fits a laptop screen.
void allow_small(QChartView& view);
}  // namespace stepscope::views
