#include "gui/local_ranks_experiment.h"

#include <QCoreApplication>
#include <QFileInfo>

#include "cli/rank_launch.h"

namespace stepscope::gui {

std::optional<QString> missing_worker(const QString& cli_program) {
  if (QFileInfo(cli_program).isExecutable()) return std::nullopt;
  return QCoreApplication::translate("LocalRanks", "Cannot run: the workers need %1, which is missing").arg(cli_program);
}

LabRun::Experiment local_ranks_experiment(LocalRanksRequest r) {
  return [r = std::move(r)](ProgressSink*, const CancelFlag* cancel, const LabRun::TablePublisher& publish) {
    std::vector<schema::Table> tables = r.empty_tables;
    ExperimentOutcome outcome;
    for (int64_t n : r.world_sizes) {
      const auto run = cli::run_on_local_ranks(
          {r.program, r.command, r.args, static_cast<int>(n), r.timeout}, tables,
          [&](size_t t, const std::vector<schema::Value>& row) {
            tables[t].rows.push_back(row);
            if (t == 0) publish(tables[0]);
          },
          nullptr, cancel);
      if (run.outcome.status == distributed::LaunchStatus::cancelled) {
        outcome.status = RunStatus::cancelled;
        outcome.message = std::to_string(tables[0].rows.size()) + " row(s) kept, every worker ended";
        break;
      }
      if (!run.outcome.ok()) {
        outcome.status = RunStatus::failed;
        outcome.message = std::to_string(n) + " ranks: " + run.outcome.message;
        break;
      }
    }
    outcome.tables = tables;
    return outcome;
  };
}

}  // namespace stepscope::gui
