// Where the user dragged every splitter of a window (form against charts, chart against
// table), kept across sessions. Each splitter is named by its path from the window, so a
// splitter added or removed elsewhere does not take another's sizes.
#pragma once

class QSettings;
class QWidget;

namespace stepscope::gui {

void save_splitters(const QWidget& window, QSettings& settings);
void restore_splitters(QWidget& window, const QSettings& settings);

}  // namespace stepscope::gui
