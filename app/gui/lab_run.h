// Runs one table-producing experiment (the precision lab's) on a worker thread and keeps it in
// the history as a run with its table; the GUI thread never waits on it.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <thread>

#include "experiments/precision/precision_lab.h"
#include "history/run_history.h"

namespace stepscope::gui {

class LabRun : public QObject {
  Q_OBJECT

 public:
  using Experiment = std::function<precision::LabOutcome(ProgressSink*, const CancelFlag*)>;

  explicit LabRun(history::RunHistory& history, QObject* parent = nullptr);
  ~LabRun() override;  // cancels a run in progress and waits for it

  bool is_running() const { return worker_.joinable(); }
  // `label` names the run in the history.
  void start(const QString& label, Experiment experiment);
  void cancel() { cancel_.cancel(); }

 signals:
  // The experiment's table (also on failure: what it measured), its status and message;
  // `error` when it could not run at all.
  void finished(const stepscope::schema::Table& table, bool ok, const QString& message);
  void history_changed();
  // The table could not be kept in the history; it is shown all the same.
  void history_problem(const QString& message);

 private:
  history::RunHistory& history_;
  std::thread worker_;
  CancelFlag cancel_;
};

}  // namespace stepscope::gui

Q_DECLARE_METATYPE(stepscope::schema::Table)
