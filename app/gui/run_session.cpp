#include "gui/run_session.h"

#include <QDateTime>

#include "runners/device_backend.h"

namespace stepscope::gui {

RunSession::RunSession(history::RunHistory& history, QObject* parent) : QObject(parent), history_(history) {
  connect(&controller_, &RunController::progress_changed, this, &RunSession::progress_changed);
  connect(&controller_, &RunController::kernel_profile_changed, this, &RunSession::kernel_profile_changed);
  connect(&controller_, &RunController::result_ready, this, &RunSession::on_outcome);
  connect(&controller_, &RunController::finished, this, &RunSession::on_finished);
}

void RunSession::start(const std::vector<BenchConfig>& configs, const RunInputs& inputs) {
  if (configs.empty() || is_running()) return;
  outcomes_.clear();
  failed_ = false;
  history_run_ = 0;
  concurrent_runs_.clear();
  registration_ = std::make_unique<RegisteredRun>("stepscope: " + describe(configs.front()) +
                                                  (configs.size() > 1 ? " (sweep)" : ""));
  if (history_.is_open()) {
    const RunEnvironment environment{STEPSCOPE_VERSION, runtime_versions(), "stepscope (desktop)",
                                     QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()};
    QString label = QString::fromStdString(describe(configs.front()));
    if (configs.size() > 1) label = tr("sweep of %1: %2, ...").arg(configs.size()).arg(label);
    QString error;
    history_run_ = history_.begin_run(environment, label, QString::fromStdString(to_string(configs.front().device)),
                                      &error, inputs, configs.size());
    if (history_run_ == 0) emit history_problem(tr("Not kept in the history: %1").arg(error));
    emit history_changed(history_run_);
  }
  std::optional<history::RunDestination> keep_in;
  if (history_run_ != 0) keep_in = history::RunDestination{history_.path(), history_run_};
  controller_.start(configs, keep_in);
}

void RunSession::on_outcome(const views::RunOutcome& outcome, const QString& unkept) {
  outcomes_.push_back(outcome);
  if (outcome.result->status == RunStatus::failed) failed_ = true;
  if (history_run_ != 0) {
    if (!unkept.isEmpty()) emit history_problem(tr("Not kept in the history: %1").arg(unkept));
    emit history_changed(history_run_);
  }
  emit outcome_ready(outcome);
}

void RunSession::on_finished(bool cancelled, const QString& error, const QString& unkept) {
  concurrent_runs_ = QString::fromStdString(describe(registration_->overlap()));
  registration_.reset();
  if (history_run_ != 0 && !concurrent_runs_.isEmpty()) {
    QString why;
    if (!history_.set_concurrent_runs(history_run_, concurrent_runs_.toStdString(), &why)) {
      emit history_problem(tr("Not kept in the history: %1").arg(why));
    }
  }
  if (history_run_ != 0) {
    if (!unkept.isEmpty()) emit history_problem(tr("History: %1").arg(unkept));
    const int64_t run = history_run_;
    history_run_ = 0;
    emit history_changed(run);
  }
  emit finished(!cancelled && error.isEmpty() && !failed_, cancelled, error);
}

}  // namespace stepscope::gui
