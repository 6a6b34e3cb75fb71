// Runs configurations on a worker thread and hands what they report to the GUI thread,
// throttled: progress and live kernel summaries at most ten times a second, each finished
// configuration at once. The GUI thread never waits on the engine.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "runners/bench_types.h"
#include "widgets/run_outcome.h"
#include "experiments/progress.h"

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
  ~RunController() override;  // cancels a run in progress and waits for it

  bool is_running() const { return worker_.joinable(); }
  void start(const std::vector<BenchConfig>& configs);
  // Stops after the step in progress; what was measured is kept.
  void cancel();

 signals:
  void progress_changed(const stepscope::gui::RunProgress& progress);
  void kernel_profile_changed(std::shared_ptr<const stepscope::profiling::KernelProfile> profile);
  void result_ready(const stepscope::views::RunOutcome& outcome);
  // Every configuration ran, or the run was cancelled; `error` when the engine threw.
  void finished(bool cancelled, const QString& error);

 private:
  class Sink;
  void publish_latest();
  double eta_seconds(const Progress& p);

  std::thread worker_;
  std::unique_ptr<Sink> sink_;
  CancelFlag cancel_;
  QTimer throttle_;
  std::vector<BenchConfig> configs_;
  QElapsedTimer phase_clock_;
  std::string phase_key_;
  double seconds_per_step_ = -1;
};

}  // namespace stepscope::gui

Q_DECLARE_METATYPE(stepscope::gui::RunProgress)
Q_DECLARE_METATYPE(std::shared_ptr<const stepscope::profiling::KernelProfile>)
Q_DECLARE_METATYPE(stepscope::views::RunOutcome)
