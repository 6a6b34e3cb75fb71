// A chart leaves the application as a PNG, drawn as on screen but on white (for slides and
// reports, whatever the window's palette).
#pragma once

#include <QSize>
#include <QString>

class QChartView;

namespace stepscope::views {

// Renders `view` at `size` (its own size when `size` is not valid, e.g. QSize()) and writes it
// to `path` as PNG. A different size lays the chart out again at that size (fonts keep their
// size) and restores the view afterwards. False with `error` set when the chart has no size
// or the file cannot be written (export/file_output.h: a read-only file is refused, not replaced).
bool save_chart_png(QChartView& view, const QString& path, QString* error, QSize size = QSize());

}  // namespace stepscope::views
