#include "gui/lab_run.h"

#include <QDateTime>
#include <QMetaObject>

#include <mutex>
#include <optional>
#include <utility>

#include "compat/torch_compat.h"
#include "runners/device_backend.h"

namespace stepscope::gui {

// Called on the worker: keeps only the latest progress and table, for the GUI thread's timer.
class LabRun::Sink final : public ProgressSink {
 public:
  void on_progress(const Progress& progress) override {
    std::lock_guard<std::mutex> lock(mutex_);
    progress_ = progress;
  }
  void set_table(const schema::Table& table) {
    std::lock_guard<std::mutex> lock(mutex_);
    table_ = table;
  }
  std::optional<Progress> take_progress() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(progress_, std::nullopt);
  }
  std::optional<schema::Table> take_table() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(table_, std::nullopt);
  }

 private:
  std::mutex mutex_;
  std::optional<Progress> progress_;
  std::optional<schema::Table> table_;
};

LabRun::LabRun(history::RunHistory& history, QObject* parent) : QObject(parent), history_(history) {
  qRegisterMetaType<schema::Table>();
  throttle_.setInterval(100);
  connect(&throttle_, &QTimer::timeout, this, &LabRun::publish_latest);
}

LabRun::~LabRun() {
  cancel_.cancel();
  if (worker_.joinable()) worker_.join();
}

void LabRun::publish_latest() {
  if (!sink_) return;
  if (const auto p = sink_->take_progress()) {
    QString text = QStringLiteral("%1/%2 %3: %4").arg(p->config_index + 1).arg(p->config_count)
                       .arg(QString::fromStdString(p->config_label), QString::fromStdString(to_string(p->phase)));
    if (is_stepping(p->phase)) text += QStringLiteral(" %1/%2").arg(p->step).arg(p->steps_in_phase);
    emit progress(text);
  }
  if (const auto table = sink_->take_table()) emit table_changed(*table);
}

void LabRun::start(const QString& label, Experiment experiment, RunInputs inputs) {
  if (is_running()) return;
  cancel_.reset();
  sink_ = std::make_unique<Sink>();
  throttle_.start();
  const RunEnvironment environment{STEPSCOPE_VERSION, runtime_versions(), "stepscope (desktop)",
                                   QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()};
  worker_ = std::thread([this, label, environment, inputs = std::move(inputs), experiment = std::move(experiment)] {
    ExperimentOutcome outcome;
    QString error;
    try {
      outcome = experiment(sink_.get(), &cancel_, [this](const schema::Table& table) { sink_->set_table(table); });
    } catch (const std::exception& e) {
      error = QString::fromStdString(compat::error_message(e));
    }
    QMetaObject::invokeMethod(
        this,
        [this, label, environment, inputs, outcome, error] {
          if (worker_.joinable()) worker_.join();
          throttle_.stop();
          publish_latest();  // what was left; `finished` then brings the whole table
          const schema::Table main = outcome.tables.empty() ? schema::Table{} : outcome.tables.front();
          if (!error.isEmpty()) {
            emit finished(main, false, error);
            return;
          }
          const std::vector<schema::Table>& tables = outcome.tables;
          emit tables_finished(tables);
          // The table is shown either way; one the history cannot keep is said to be unkept.
          QString problem = history_.why_closed();
          if (problem.isEmpty() && history_.import_record(RunRecord{environment, {}, tables, inputs}, label, &problem) != 0) {
            problem.clear();
          }
          if (!problem.isEmpty()) emit history_problem(tr("Not kept in the history: %1").arg(problem));
          emit history_changed();
          const bool ok = outcome.status == RunStatus::ok;
          emit finished(main, ok,
                        ok ? QString() : QString::fromStdString(to_string(outcome.status) + ": " + outcome.message));
        },
        Qt::QueuedConnection);
  });
}

}  // namespace stepscope::gui
