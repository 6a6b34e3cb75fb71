// Drives the Attention tab: checks that every configuration of the sweep can run here (naming
// the field at fault when not), runs the sweep on the lab's worker thread with progress and
// Cancel, shows the table as rows arrive, and keeps the run in the history.
#pragma once

#include <QObject>
#include <QString>

#include "experiments/attention/attention_sweep_spec.h"
#include "gui/lab_run.h"

namespace stepscope::views {
class AttentionView;
}

namespace stepscope::gui {

class AttentionTab : public QObject {
  Q_OBJECT

 public:
  AttentionTab(history::RunHistory& history, views::AttentionView* view, QObject* parent = nullptr);

  bool is_running() const { return lab_.is_running(); }
  // As the Run button does; false (with `status` saying why) when the sweep cannot run here.
  bool start(const AttentionSweepSpec& spec);

 signals:
  void status(const QString& text);
  void history_changed();
  void history_problem(const QString& message);
  void finished(bool ok);

 private:
  views::AttentionView* view_;
  LabRun lab_;
};

}  // namespace stepscope::gui
