// Runs the step benchmark's configurations on the app's worker thread (gui/worker_thread.h):
// progress with an estimate of the time left and live kernel summaries at most ten times a
// second, each finished configuration at once. The GUI thread never waits on the engine, nor
// on the history's disk: each configuration is kept there from the worker thread.
#pragma once

#include <QElapsedTimer>
#include <QObject>

#include <memory>
#include <optional>
#include <vector>

#include "runners/bench_types.h"
#include "widgets/run_outcome.h"
#include "core/progress.h"
#include "gui/worker_thread.h"
#include "history/run_writer.h"

namespace stepscope::gui {

using views::RunOutcome;

struct RunProgress {
  Progress progress;
  double eta_seconds = -1;  // < 0 unknown
};

class RunController : public QObject {
  Q_OBJECT

 public:
  explicit RunController(QObject* parent = nullptr);

  bool is_running() const { return worker_.is_running(); }
  // With `keep_in`, each configuration is written to that history run before it is reported,
  // and the run's end after the last.
  void start(const std::vector<BenchConfig>& configs, std::optional<history::RunDestination> keep_in);
  // Stops after the step in progress; what was measured is kept.
  void cancel();

 signals:
  void progress_changed(const stepscope::gui::RunProgress& progress);
  void kernel_profile_changed(std::shared_ptr<const stepscope::profiling::KernelProfile> profile);
  // `unkept`: why the configuration could not be kept in the history (empty when it was).
  void result_ready(const stepscope::views::RunOutcome& outcome, const QString& unkept);
  // Every configuration ran, or the run was cancelled; `error` when the engine threw;
  // `unkept` when the run's end could not be kept in the history.
  void finished(bool cancelled, const QString& error, const QString& unkept);

 private:
  double eta_seconds(const Progress& p);

  WorkerThread worker_;  // cancels a run in progress and waits for it when destroyed
  std::vector<BenchConfig> configs_;
  QElapsedTimer phase_clock_;
  std::string phase_key_;
  double seconds_per_step_ = -1;
};

}  // namespace stepscope::gui

Q_DECLARE_METATYPE(stepscope::gui::RunProgress)
Q_DECLARE_METATYPE(std::shared_ptr<const stepscope::profiling::KernelProfile>)
Q_DECLARE_METATYPE(stepscope::views::RunOutcome)
