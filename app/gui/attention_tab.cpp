#include "gui/attention_tab.h"

#include "compat/torch_compat.h"
#include "experiments/attention/attention_inputs.h"
#include "experiments/attention/attention_schema.h"
#include "experiments/attention/attention_sweep.h"
#include "widgets/attention_view.h"

namespace stepscope::gui {

namespace {

// The sweep's outcome: failed when any configuration failed, cancelled when cut short; out of
// memory is a result, not a failure.
ExperimentOutcome run_sweep(const std::vector<AttentionConfig>& configs, int rounds, ProgressSink* sink,
                                const CancelFlag* cancel, const LabRun::TablePublisher& publish) {
  std::vector<AttentionResult> results;
  ExperimentOutcome outcome;
  run_attention_sweep(configs, rounds, sink, cancel, [&](const AttentionResult& r) {
    results.push_back(r);
    publish(attention_schema().table(results));
    if (r.status == RunStatus::failed && outcome.status == RunStatus::ok) {
      outcome.status = RunStatus::failed;
      outcome.message = describe(r.config) + ": " + r.message;
    }
  });
  if (cancel->is_cancelled() && outcome.status == RunStatus::ok) {
    outcome.status = RunStatus::cancelled;
    outcome.message = std::to_string(results.size()) + " of " + std::to_string(configs.size()) + " configurations ran";
  }
  outcome.tables = {attention_schema().table(results)};
  return outcome;
}

}  // namespace

AttentionTab::AttentionTab(history::RunHistory& history, views::AttentionView* view, QObject* parent)
    : QObject(parent), view_(view), lab_(history) {
  views::AttentionSweepForm* form = view->form();
  connect(form, &views::AttentionSweepForm::run_requested, this, [this](const AttentionSweepSpec& spec) { start(spec); });
  connect(form, &views::AttentionSweepForm::cancel_requested, this, [this] {
    lab_.cancel();
    emit status(tr("Cancelling after the pass in progress"));
  });
  connect(&lab_, &LabRun::progress, this, &AttentionTab::status);
  connect(&lab_, &LabRun::table_changed, this,
          [this](const schema::Table& table) { view_->show_tables({table}); });
  connect(&lab_, &LabRun::finished, this, [this](const schema::Table& table, bool ok, const QString& message) {
    view_->form()->set_running(false);
    view_->show_tables({table});
    emit status(ok ? tr("Attention sweep done: %1 configurations").arg(table.rows.size())
                   : tr("Attention sweep: %1").arg(message));
    emit finished(ok);
  });
  connect(&lab_, &LabRun::history_changed, this, &AttentionTab::history_changed);
  connect(&lab_, &LabRun::history_problem, this, &AttentionTab::history_problem);
}

bool AttentionTab::start(const AttentionSweepSpec& spec) {
  if (lab_.is_running()) return false;
  const std::vector<AttentionConfig> configs = expand(spec);
  try {
    for (const auto& c : configs) check_runnable(c);
  } catch (const ConfigError& e) {
    emit status(tr("Cannot run: %1").arg(QString::fromStdString(compat::error_message(e))));
    return false;
  }
  view_->clear();
  view_->form()->set_running(true);
  emit status(tr("Running %1 attention configurations").arg(configs.size()));
  const QString label = QStringLiteral("attention: %1 configurations on %2")
                            .arg(configs.size())
                            .arg(QString::fromStdString(spec.base.device));
  const int rounds = sweep_rounds(spec);
  lab_.start(label, [configs, rounds](ProgressSink* sink, const CancelFlag* cancel,
                                      const LabRun::TablePublisher& publish) {
    return run_sweep(configs, rounds, sink, cancel, publish);
  }, {"attention", attention_values(spec).given_values()});
  return true;
}

}  // namespace stepscope::gui
