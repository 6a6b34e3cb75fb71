// A run from start to end, as the app keeps it: begins the run in the history, has the run
// controller record every configuration as it finishes (crash-safe: a run is written as it
// goes) and the run's end, and says what could not be kept. The window only presents.
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "experiments/run_registry.h"
#include "gui/run_controller.h"
#include "history/run_history.h"

namespace stepscope::gui {

class RunSession : public QObject {
  Q_OBJECT

 public:
  // `history` may be closed (it could not be opened): runs then work but are not kept.
  explicit RunSession(history::RunHistory& history, QObject* parent = nullptr);

  bool is_running() const { return controller_.is_running(); }
  // `inputs`: what asked for the configurations, kept in the run's record so that it reopens
  // and runs again with them.
  void start(const std::vector<BenchConfig>& configs, const RunInputs& inputs);
  // Stops after the step in progress; what was measured is kept (and recorded).
  void cancel() { controller_.cancel(); }
  const std::vector<views::RunOutcome>& outcomes() const { return outcomes_; }
  // What other Stepscope runs (the CLI, another window) ran during the last run, in words;
  // empty when none did. Kept in its record; set before finished().
  QString concurrent_runs() const { return concurrent_runs_; }

 signals:
  void progress_changed(const stepscope::gui::RunProgress& progress);
  void kernel_profile_changed(std::shared_ptr<const stepscope::profiling::KernelProfile> profile);
  void outcome_ready(const stepscope::views::RunOutcome& outcome);
  // The history changed (a run begun, a configuration added, a run ended).
  void history_changed(qint64 run);
  // Something could not be kept in the history; the run itself goes on.
  void history_problem(const QString& message);
  // `complete`: every configuration ran and none failed.
  void finished(bool complete, bool cancelled, const QString& error);

 private:
  void on_outcome(const views::RunOutcome& outcome, const QString& unkept);
  void on_finished(bool cancelled, const QString& error, const QString& unkept);

  RunController controller_;
  history::RunHistory& history_;
  int64_t history_run_ = 0;  // the run being recorded; 0 when none
  std::vector<views::RunOutcome> outcomes_;
  bool failed_ = false;
  std::unique_ptr<RegisteredRun> registration_;  // others see this run; it sees them
  QString concurrent_runs_;
};

}  // namespace stepscope::gui
