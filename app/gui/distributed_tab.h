// Drives the Distributed tab: for each world size asked for, starts that many local workers of
// stepscope-cli beside the app (`ddp --worker-rows`), gathers rank 0's rows of the three DDP
// tables (rows, each rank's rows, the overlap picture) as they come, and keeps the run in the
// history; Cancel ends every worker. The Communication tab's latest all-reduce table, when
// there is one, feeds the bucket overhead model.
#pragma once

#include <QObject>
#include <QString>

#include <optional>

#include "gui/lab_run.h"
#include "widgets/distributed_view.h"

namespace stepscope::gui {

class DistributedTab : public QObject {
  Q_OBJECT

 public:
  // `cli_program`: the stepscope-cli the workers run (the app's own directory holds one).
  DistributedTab(history::RunHistory& history, views::DistributedView* view, QString cli_program,
                 QObject* parent = nullptr);

  bool start(const views::DistributedRequest& request);
  // All-reduce rows measured elsewhere (the Communication tab) for the overhead model.
  void set_collectives(const schema::Table& table);

 signals:
  void status(const QString& text);
  void history_changed();
  void history_problem(const QString& message);
  void finished(bool ok);

 private:
  views::DistributedView* view_;
  QString cli_program_;
  LabRun lab_;
};

// The worker arguments of `ddp` that ask for what `spec` covers (without --nproc).
std::vector<std::string> ddp_arguments(const DdpSweepSpec& spec);

}  // namespace stepscope::gui
