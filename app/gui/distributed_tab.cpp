#include "gui/distributed_tab.h"

#include "experiments/ddp/ddp_inputs.h"
#include "experiments/ddp/ddp_memory_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "schema/input_arguments.h"
#include "schema/value_format.h"
#include "gui/local_ranks_experiment.h"

namespace stepscope::gui {

std::vector<std::string> ddp_arguments(const DdpSweepSpec& spec) {
  std::vector<std::string> args = schema::to_arguments(ddp_values(spec));
  args.push_back("--quiet");
  return args;
}

DistributedTab::DistributedTab(history::RunHistory& history, views::DistributedView* view, QString cli_program,
                               QObject* parent)
    : QObject(parent), view_(view), cli_program_(std::move(cli_program)), lab_(history) {
  connect(view, &views::DistributedView::run_requested, this,
          [this](const views::DistributedRequest& request) { start(request); });
  connect(view, &views::DistributedView::cancel_requested, this, [this] {
    lab_.cancel();
    emit status(tr("Cancelling: ending every worker"));
  });
  connect(&lab_, &LabRun::progress, this, &DistributedTab::status);
  connect(&lab_, &LabRun::table_changed, this, [this](const schema::Table& table) {
    view_->show_tables({table});
    emit status(tr("DDP: %1 row(s) measured").arg(table.rows.size()));
  });
  connect(&lab_, &LabRun::tables_finished, this,
          [this](const std::vector<schema::Table>& tables) { view_->show_tables(tables); });
  connect(&lab_, &LabRun::finished, this, [this](const schema::Table& table, bool ok, const QString& message) {
    view_->set_running(false);
    emit status(ok ? tr("DDP done: %1 row(s)").arg(table.rows.size()) : tr("DDP: %1").arg(message));
    emit finished(ok);
  });
  connect(&lab_, &LabRun::history_changed, this, &DistributedTab::history_changed);
  connect(&lab_, &LabRun::history_problem, this, &DistributedTab::history_problem);
}

void DistributedTab::set_collectives(const schema::Table& table) { view_->show_tables({table}); }

bool DistributedTab::start(const views::DistributedRequest& request) {
  if (lab_.is_running()) return false;
  try {
    for (int64_t n : request.world_sizes) {
      for (const auto& c : expand(request.spec, static_cast<int>(n))) validate(c);
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
  const QString label = QStringLiteral("ddp: %1 %2 on %3")
                            .arg(QString::fromStdString(request.spec.base.model.name),
                                 QString::fromStdString(to_string(request.spec.base.backend)),
                                 QString::fromStdString(request.spec.base.device));
  schema::Table ranks = ddp_schema().table({});
  ranks.schema = "ddp.ranks";
  lab_.start(label, local_ranks_experiment({cli_program_.toStdString(), "ddp", ddp_arguments(request.spec),
                                            request.world_sizes,
                                            {ddp_schema().table({}), ranks, ddp_timeline_schema().table({}),
                                             ddp_memory_schema().table({})},
                                            std::chrono::seconds(120)}),
             {"ddp", inputs_with_ranks(ddp_values(request.spec), request.world_sizes)});
  return true;
}

}  // namespace stepscope::gui
