// Runs one table-producing experiment (an experiment tab's) on the app's worker thread
// (gui/worker_thread.h) and keeps it in the history as a run with its tables; the GUI thread
// never waits on it. Progress and the table so far reach the GUI thread while it runs, at most
// ten times a second.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

#include "core/progress.h"
#include "experiments/run_registry.h"
#include "experiments/experiment_outcome.h"
#include "gui/worker_thread.h"
#include "history/run_history.h"
#include "io/run_record_json.h"

namespace stepscope::gui {

class LabRun : public QObject {
  Q_OBJECT

 public:
  // Hands the table as measured so far to the GUI (from the worker thread).
  using TablePublisher = std::function<void(const schema::Table&)>;
  using Experiment = std::function<ExperimentOutcome(ProgressSink*, const CancelFlag*, const TablePublisher&)>;

  explicit LabRun(history::RunHistory& history, QObject* parent = nullptr);

  bool is_running() const { return worker_.is_running(); }
  // `label` names the run in the history; `inputs` are what it was asked, kept in its record
  // so that it reopens and runs again with them.
  void start(const QString& label, Experiment experiment, RunInputs inputs = {});
  void cancel() { worker_.cancel(); }

 signals:
  // The experiment's table (also on failure: what it measured), its status and message;
  // `error` when it could not run at all. When ok, the message says what other Stepscope
  // runs ran during it (kept in its record), or nothing.
  void finished(const stepscope::schema::Table& table, bool ok, const QString& message);
  // Where the run is: "3/24 flash b 8 h 1 d 64 seq 4096 fp32: measuring 40/100".
  void progress(const QString& text);
  void table_changed(const stepscope::schema::Table& table);
  // Right before `finished`: the experiment's table and its side tables, as kept in the history.
  void tables_finished(const std::vector<stepscope::schema::Table>& tables);
  void history_changed();
  // The table could not be kept in the history; it is shown all the same.
  void history_problem(const QString& message);

 private:
  void finish(const QString& label, const RunEnvironment& environment, const RunInputs& inputs,
              const ExperimentOutcome& outcome, const QString& error);

  history::RunHistory& history_;
  std::unique_ptr<RegisteredRun> registration_;  // others see this run; it sees them
  WorkerThread worker_;  // cancels a run in progress and waits for it when destroyed
};

}  // namespace stepscope::gui

Q_DECLARE_METATYPE(stepscope::schema::Table)
