// Drives the tab of one experiment (views/widgets/experiment_view.h) from its descriptor: runs
// it on the lab's worker thread, in process or as a job of local ranks of stepscope-cli, shows
// the tables as rows arrive, and keeps the run in the history with its inputs, so that it
// reopens and runs again with them. One driver for every experiment's tab. Its runs go through
// the window's run gate: a Run while another experiment runs waits in line, Cancel takes it out.
#pragma once

#include <QObject>
#include <QString>

#include <vector>

#include "gui/lab_run.h"
#include "gui/run_gate.h"
#include "schema/input_values.h"

namespace stepscope::views {
class ExperimentView;
}

namespace stepscope::gui {

class ExperimentTab : public QObject {
  Q_OBJECT

 public:
  // `cli_program`: the stepscope-cli whose workers run a job of ranks.
  ExperimentTab(history::RunHistory& history, RunGate& gate, views::ExperimentView* view, QString cli_program,
                QObject* parent = nullptr);

  views::ExperimentView* view() const { return view_; }
  bool is_running() const { return lab_.is_running(); }
  // Waits in the gate's line for the run before it to end.
  bool is_queued() const { return gate_.is_queued(ticket_); }
  // As the Run button does: runs now, or queues behind the run in progress; false (with
  // `status` saying why) when it cannot run here.
  bool start(const schema::InputValues& values);
  // Stops the run in progress after its step, or takes a queued one out of the line.
  void cancel();

 signals:
  void status(const QString& text);
  void history_changed();
  void history_problem(const QString& message);
  // The run's tables once it ended (what was measured, also when cancelled or failed).
  void tables_finished(const std::vector<stepscope::schema::Table>& tables);
  void finished(bool ok);

 private:
  void begin(const schema::InputValues& values, const QString& label);
  void show_queue();
  void say(const QString& text);

  RunGate& gate_;
  RunGate::Ticket ticket_ = 0;  // queued or running; 0 when neither
  views::ExperimentView* view_;
  QString cli_program_;
  LabRun lab_;
};

}  // namespace stepscope::gui
