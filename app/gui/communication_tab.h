// Drives the Communication tab: for each world size asked for, starts that many local workers of
// stepscope-cli beside the app (`allreduce --worker-rows`), gathers rank 0's rows as they come,
// and keeps the run in the history; Cancel ends every worker.
#pragma once

#include <QObject>
#include <QString>

#include "gui/lab_run.h"
#include "widgets/communication_view.h"

namespace stepscope::gui {

class CommunicationTab : public QObject {
  Q_OBJECT

 public:
  // `cli_program`: the stepscope-cli the workers run (the app's own directory holds one).
  CommunicationTab(history::RunHistory& history, views::CommunicationView* view, QString cli_program,
                   QObject* parent = nullptr);

  bool start(const views::CommunicationRequest& request);

 signals:
  void status(const QString& text);
  void history_changed();
  void history_problem(const QString& message);
  void finished(bool ok);
  // The table of a run that ended (also a failed or cancelled one: what it measured).
  void table_finished(const stepscope::schema::Table& table);

 private:
  views::CommunicationView* view_;
  QString cli_program_;
  LabRun lab_;
};

// The worker arguments of `allreduce` that ask for what `spec` covers.
std::vector<std::string> allreduce_arguments(const CollectiveSweepSpec& spec);

}  // namespace stepscope::gui
