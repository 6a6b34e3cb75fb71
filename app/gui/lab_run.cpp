#include "gui/lab_run.h"

#include <QDateTime>
#include <memory>
#include <utility>

#include "compat/torch_compat.h"
#include "runners/device_backend.h"

namespace stepscope::gui {

LabRun::LabRun(history::RunHistory& history, QObject* parent) : QObject(parent), history_(history) {
  qRegisterMetaType<schema::Table>();
  connect(&worker_, &WorkerThread::progress, this, [this](const Progress& p) {
    QString text = QStringLiteral("%1/%2 %3: %4").arg(p.config_index + 1).arg(p.config_count)
                       .arg(QString::fromStdString(p.config_label), QString::fromStdString(to_string(p.phase)));
    if (is_stepping(p.phase)) text += QStringLiteral(" %1/%2").arg(p.step).arg(p.steps_in_phase);
    emit progress(text);
  });
  connect(&worker_, &WorkerThread::table, this, &LabRun::table_changed);
}

void LabRun::start(const QString& label, Experiment experiment, RunInputs inputs) {
  if (is_running()) return;
  const RunEnvironment environment{STEPSCOPE_VERSION, runtime_versions(), "stepscope (desktop)",
                                   QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()};
  registration_ = std::make_unique<RegisteredRun>("stepscope: " + label.toStdString());
  auto outcome = std::make_shared<ExperimentOutcome>();
  auto error = std::make_shared<QString>();
  worker_.start(
      [experiment = std::move(experiment), outcome, error](WorkerReports& reports, const CancelFlag& cancel) {
        try {
          *outcome = experiment(&reports, &cancel, [&reports](const schema::Table& table) { reports.set_table(table); });
        } catch (const std::exception& e) {
          *error = QString::fromStdString(compat::error_message(e));
        }
      },
      [this, label, environment, inputs = std::move(inputs), outcome, error] {
        finish(label, environment, inputs, *outcome, *error);
      });
}

void LabRun::finish(const QString& label, const RunEnvironment& started, const RunInputs& inputs,
                    const ExperimentOutcome& outcome, const QString& error) {
  RunEnvironment environment = started;
  if (registration_) environment.concurrent_runs = describe(registration_->overlap());
  registration_.reset();
  const schema::Table main = outcome.tables.empty() ? schema::Table{} : outcome.tables.front();
  if (!error.isEmpty()) {  // it could not run at all (a device that cannot do it): no run to keep
    emit finished(main, false, error);
    return;
  }
  const std::vector<schema::Table>& tables = outcome.tables;
  emit tables_finished(tables);
  // Kept as it ended, with what it measured: a cancelled sweep is listed as cancelled, k of n.
  const RunRecord record{environment, {}, tables, inputs, RunEnding{outcome.status, outcome.configurations}};
  // The table is shown either way; one the history cannot keep is said to be unkept.
  QString problem = history_.why_closed();
  if (problem.isEmpty() && history_.import_record(record, label, &problem) != 0) problem.clear();
  if (!problem.isEmpty()) emit history_problem(tr("Not kept in the history: %1").arg(problem));
  emit history_changed();
  const bool ok = outcome.status == RunStatus::ok;
  emit finished(main, ok,
                QString::fromStdString(ok ? environment.concurrent_runs
                                          : to_string(outcome.status) + ": " + outcome.message));
}

}  // namespace stepscope::gui
