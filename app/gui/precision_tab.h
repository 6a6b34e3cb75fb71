// Drives the Precision tab: runs what its buttons ask for on the lab's worker thread, keeps each
// run in the history, and hands the finished table back to the tab.
#pragma once

#include <QObject>
#include <QString>

#include "gui/lab_run.h"

namespace stepscope::views {
class PrecisionView;
}

namespace stepscope::gui {

class PrecisionTab : public QObject {
  Q_OBJECT

 public:
  PrecisionTab(history::RunHistory& history, views::PrecisionView* view, QObject* parent = nullptr);

 signals:
  // What the status bar says: running, done, or why it failed.
  void status(const QString& text);
  void history_changed();
  void history_problem(const QString& message);

 private:
  void start(const QString& label, LabRun::Experiment experiment);

  views::PrecisionView* view_;
  LabRun lab_;
};

}  // namespace stepscope::gui
