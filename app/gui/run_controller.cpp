#include "gui/run_controller.h"

#include <QMetaObject>

#include <exception>

#include "charts/memory_chart_view.h"
#include "compat/torch_compat.h"
#include "experiments/bench/bench_sweep.h"

namespace stepscope::gui {

RunController::RunController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<RunProgress>();
  qRegisterMetaType<std::shared_ptr<const profiling::KernelProfile>>();
  qRegisterMetaType<RunOutcome>();
  connect(&worker_, &WorkerThread::progress, this, [this](const Progress& p) {
    emit progress_changed(RunProgress{p, eta_seconds(p)});
  });
  connect(&worker_, &WorkerThread::kernel_profile, this, &RunController::kernel_profile_changed);
}

void RunController::start(const std::vector<BenchConfig>& configs, std::optional<history::RunDestination> keep_in) {
  if (is_running()) return;
  configs_ = configs;
  phase_key_.clear();
  seconds_per_step_ = -1;
  struct End {
    QString error, unkept;
    bool cancelled = false;
  };
  auto end = std::make_shared<End>();  // the work's, for `done`
  worker_.start(
      [this, configs, keep_in, end](WorkerReports& reports, const CancelFlag& cancel) {
        std::optional<history::RunWriter> writer;  // its connection belongs to this thread
        if (keep_in) writer.emplace(*keep_in);
        bool failed = false;
        try {
          run_sweep(configs, &reports, &cancel, [this, &writer, &failed](const BenchResult& result) {
            failed = failed || result.status == RunStatus::failed;
            QString unkept;
            if (writer) writer->add({result, result.memory_timeline}, &unkept);
            RunOutcome outcome{std::make_shared<const BenchResult>(result), result.memory_timeline, nullptr};
            if (outcome.timeline) {
              // Here, not on the GUI thread: a long run's timeline holds thousands of points.
              outcome.memory_chart = std::make_shared<const views::MemoryChartData>(
                  views::build_memory_chart_data(*outcome.timeline, views::MemoryChartView::kDefaultMaxPoints));
            }
            worker_.post([this, outcome, unkept] { emit result_ready(outcome, unkept); });
          });
        } catch (const std::exception& e) {
          end->error = QString::fromStdString(compat::error_message(e));
        }
        if (writer) {
          writer->finish(history::ended_state(failed || !end->error.isEmpty(), cancel.is_cancelled()), &end->unkept);
        }
        end->cancelled = cancel.is_cancelled();
      },
      [this, end] { emit finished(end->cancelled, end->error, end->unkept); });
}

void RunController::cancel() { worker_.cancel(); }

double RunController::eta_seconds(const Progress& p) {
  const std::string key = std::to_string(p.config_index) + to_string(p.phase);
  if (key != phase_key_) {
    phase_key_ = key;
    phase_clock_.start();
  }
  if (is_stepping(p.phase) && p.step > 0) seconds_per_step_ = phase_clock_.elapsed() / 1000.0 / p.step;
  if (seconds_per_step_ < 0 || p.config_index >= static_cast<int>(configs_.size())) return -1;
  const BenchConfig& c = configs_[static_cast<size_t>(p.config_index)];
  // Steps left in this configuration: all of them less those of the phases done and this one's.
  const int profiled = total_steps(c) - c.warmup_steps - c.measured_steps;
  double steps_left = p.phase == RunPhase::warmup      ? total_steps(c) - p.step
                      : p.phase == RunPhase::measuring ? c.measured_steps + profiled - p.step
                      : p.phase == RunPhase::profiling ? profiled - p.step
                                                       : 0;
  // Later configurations of a sweep: as many steps at the current pace (larger ones take longer).
  for (size_t i = static_cast<size_t>(p.config_index) + 1; i < configs_.size(); ++i) {
    steps_left += total_steps(configs_[i]);
  }
  return steps_left * seconds_per_step_;
}

}  // namespace stepscope::gui
