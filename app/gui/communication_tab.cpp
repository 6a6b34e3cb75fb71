#include "gui/communication_tab.h"

#include "experiments/collectives/collective_case.h"
#include "experiments/collectives/collective_inputs.h"
#include "experiments/collectives/collective_schema.h"
#include "gui/local_ranks_experiment.h"
#include "schema/input_arguments.h"

namespace stepscope::gui {

std::vector<std::string> allreduce_arguments(const CollectiveSweepSpec& spec) {
  std::vector<std::string> args = schema::to_arguments(collective_values(spec));
  args.push_back("--quiet");
  return args;
}

CommunicationTab::CommunicationTab(history::RunHistory& history, views::CommunicationView* view, QString cli_program,
                                   QObject* parent)
    : QObject(parent), view_(view), cli_program_(std::move(cli_program)), lab_(history) {
  connect(view, &views::CommunicationView::run_requested, this,
          [this](const views::CommunicationRequest& request) { start(request); });
  connect(view, &views::CommunicationView::cancel_requested, this, [this] {
    lab_.cancel();
    emit status(tr("Cancelling: ending every worker"));
  });
  connect(&lab_, &LabRun::table_changed, this, [this](const schema::Table& table) {
    view_->show_tables({table});
    emit status(tr("Collectives: %1 row(s) measured").arg(table.rows.size()));
  });
  connect(&lab_, &LabRun::finished, this, [this](const schema::Table& table, bool ok, const QString& message) {
    view_->set_running(false);
    view_->show_tables({table});
    emit status(ok ? tr("Collectives done: %1 row(s)").arg(table.rows.size()) : tr("Collectives: %1").arg(message));
    emit table_finished(table);
    emit finished(ok);
  });
  connect(&lab_, &LabRun::history_changed, this, &CommunicationTab::history_changed);
  connect(&lab_, &LabRun::history_problem, this, &CommunicationTab::history_problem);
}

bool CommunicationTab::start(const views::CommunicationRequest& request) {
  if (lab_.is_running()) return false;
  try {
    for (int64_t n : request.world_sizes) {
      for (const auto& c : expand(request.spec, static_cast<int>(n))) check_runnable(c);
    }
  } catch (const ConfigError& e) {
    emit status(tr("Cannot run: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  if (const auto missing = missing_worker(cli_program_)) {
    emit status(*missing);
    return false;
  }
  view_->clear();
  view_->set_running(true);
  emit status(tr("Starting workers"));
  const QString label = QStringLiteral("collectives: %1 on %2").arg(
      QString::fromStdString(to_string(request.spec.base.backend)), QString::fromStdString(request.spec.base.device));
  const auto& schema = collective_schema();
  lab_.start(label, local_ranks_experiment({cli_program_.toStdString(), "allreduce", allreduce_arguments(request.spec),
                                            request.world_sizes, {schema.table({})}}),
             {"collectives", inputs_with_ranks(collective_values(request.spec), request.world_sizes)});
  return true;
}

}  // namespace stepscope::gui
