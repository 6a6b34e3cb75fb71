#include "gui/lab_run.h"

#include <QDateTime>
#include <QMetaObject>

#include "compat/torch_compat.h"
#include "runners/device_backend.h"

namespace stepscope::gui {

LabRun::LabRun(history::RunHistory& history, QObject* parent) : QObject(parent), history_(history) {
  qRegisterMetaType<schema::Table>();
}

LabRun::~LabRun() {
  cancel_.cancel();
  if (worker_.joinable()) worker_.join();
}

void LabRun::start(const QString& label, Experiment experiment) {
  if (is_running()) return;
  cancel_.reset();
  const RunEnvironment environment{STEPSCOPE_VERSION, runtime_versions(), "stepscope (desktop)",
                                   QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()};
  worker_ = std::thread([this, label, environment, experiment = std::move(experiment)] {
    precision::LabOutcome outcome;
    QString error;
    try {
      outcome = experiment(nullptr, &cancel_);
    } catch (const std::exception& e) {
      error = QString::fromStdString(compat::error_message(e));
    }
    QMetaObject::invokeMethod(
        this,
        [this, label, environment, outcome, error] {
          if (worker_.joinable()) worker_.join();
          if (!error.isEmpty()) {
            emit finished(outcome.table, false, error);
            return;
          }
          if (history_.is_open()) {
            QString problem;  // the table is shown either way
            if (history_.import_record(RunRecord{environment, {}, {outcome.table}}, label, &problem) == 0) {
              emit history_problem(tr("Not kept in the history: %1").arg(problem));
            }
            emit history_changed();
          }
          const bool ok = outcome.status == RunStatus::ok;
          emit finished(outcome.table, ok,
                        ok ? QString() : QString::fromStdString(to_string(outcome.status) + ": " + outcome.message));
        },
        Qt::QueuedConnection);
  });
}

}  // namespace stepscope::gui
