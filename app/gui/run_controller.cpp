#include "gui/run_controller.h"

#include <QMetaObject>

#include <exception>

#include "charts/memory_chart_view.h"
#include "compat/torch_compat.h"
#include "experiments/bench/bench_sweep.h"

namespace stepscope::gui {

// Called on the engine's threads: keeps only the latest of each report, for the GUI
// thread's timer to pick up.
class RunController::Sink final : public ProgressSink {
 public:
  void on_progress(const Progress& progress) override {
    std::lock_guard<std::mutex> lock(mutex_);
    progress_ = progress;
  }
  void on_kernel_profile(const profiling::KernelProfile& profile) override {
    auto copy = std::make_shared<const profiling::KernelProfile>(profile);
    std::lock_guard<std::mutex> lock(mutex_);
    profile_ = std::move(copy);
  }
  std::optional<Progress> take_progress() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto p = std::move(progress_);
    progress_.reset();
    return p;
  }
  std::shared_ptr<const profiling::KernelProfile> take_profile() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(profile_);
  }

 private:
  std::mutex mutex_;
  std::optional<Progress> progress_;
  std::shared_ptr<const profiling::KernelProfile> profile_;
};

RunController::RunController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<RunProgress>();
  qRegisterMetaType<std::shared_ptr<const profiling::KernelProfile>>();
  qRegisterMetaType<RunOutcome>();
  throttle_.setInterval(100);  // about ten updates a second
  connect(&throttle_, &QTimer::timeout, this, [this] { publish_latest(); });
}

RunController::~RunController() {
  cancel_.cancel();
  if (worker_.joinable()) worker_.join();
}

void RunController::start(const std::vector<BenchConfig>& configs, std::optional<history::RunDestination> keep_in) {
  if (is_running()) return;
  configs_ = configs;
  sink_ = std::make_unique<Sink>();
  cancel_.reset();
  phase_key_.clear();
  seconds_per_step_ = -1;
  throttle_.start();
  worker_ = std::thread([this, configs, keep_in] {
    std::optional<history::RunWriter> writer;  // its connection belongs to this thread
    if (keep_in) writer.emplace(*keep_in);
    QString error;
    bool failed = false;
    try {
      run_sweep(configs, sink_.get(), &cancel_, [this, &writer, &failed](const BenchResult& result) {
        failed = failed || result.status == RunStatus::failed;
        QString unkept;
        if (writer) writer->add({result, result.memory_timeline}, &unkept);
        RunOutcome outcome{std::make_shared<const BenchResult>(result), result.memory_timeline, nullptr};
        if (outcome.timeline) {
          // Here, not on the GUI thread: a long run's timeline holds thousands of points.
          outcome.memory_chart = std::make_shared<const views::MemoryChartData>(
              views::build_memory_chart_data(*outcome.timeline, views::MemoryChartView::kDefaultMaxPoints));
        }
        QMetaObject::invokeMethod(
            this, [this, outcome, unkept] { emit result_ready(outcome, unkept); }, Qt::QueuedConnection);
      });
    } catch (const std::exception& e) {
      error = QString::fromStdString(compat::error_message(e));
    }
    const bool cancelled = cancel_.is_cancelled();
    QString unkept;
    if (writer) writer->finish(history::ended_state(failed || !error.isEmpty(), cancelled), &unkept);
    QMetaObject::invokeMethod(
        this,
        [this, cancelled, error, unkept] {
          if (worker_.joinable()) worker_.join();
          throttle_.stop();
          publish_latest();
          emit finished(cancelled, error, unkept);
        },
        Qt::QueuedConnection);
  });
}

void RunController::cancel() { cancel_.cancel(); }

double RunController::eta_seconds(const Progress& p) {
  const std::string key = std::to_string(p.config_index) + to_string(p.phase);
  if (key != phase_key_) {
    phase_key_ = key;
    phase_clock_.start();
  }
  if (is_stepping(p.phase) && p.step > 0) seconds_per_step_ = phase_clock_.elapsed() / 1000.0 / p.step;
  if (seconds_per_step_ < 0 || p.config_index >= static_cast<int>(configs_.size())) return -1;
  const BenchConfig& c = configs_[static_cast<size_t>(p.config_index)];
  double steps_left = p.phase == RunPhase::warmup      ? (c.warmup_steps - p.step) + c.measured_steps
                      : p.phase == RunPhase::measuring ? c.measured_steps - p.step
                                                       : 0;
  // Later configurations of a sweep: as many steps at the current pace (larger ones take longer).
  for (size_t i = static_cast<size_t>(p.config_index) + 1; i < configs_.size(); ++i) {
    steps_left += configs_[i].warmup_steps + configs_[i].measured_steps;
  }
  return steps_left * seconds_per_step_;
}

void RunController::publish_latest() {
  if (!sink_) return;
  if (auto p = sink_->take_progress()) {
    RunProgress progress;
    progress.progress = *p;
    progress.eta_seconds = eta_seconds(*p);
    emit progress_changed(progress);
  }
  if (auto profile = sink_->take_profile()) emit kernel_profile_changed(std::move(profile));
}

}  // namespace stepscope::gui
