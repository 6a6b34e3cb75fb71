#include "gui/experiment_tab.h"

#include <chrono>

#include "core/config_error.h"
#include "experiments/common_inputs.h"
#include "gui/local_ranks_experiment.h"
#include "runners/cpu_threads.h"
#include "schema/input_arguments.h"
#include "widgets/experiment_view.h"

namespace stepscope::gui {

namespace {

// A job of local ranks: every input but --nproc goes to the workers, one job per --nproc value.
LabRun::Experiment ranks_experiment(const ExperimentDescriptor& d, const schema::InputValues& values,
                                    const std::string& cli_program) {
  schema::InputValues worker = values;
  worker.clear("nproc");
  std::vector<std::string> args = schema::to_arguments(worker);
  args.push_back("--quiet");
  // The workers take this window's CPU threads setting, each.
  args.push_back("--threads");
  args.push_back(std::to_string(cpu_threads()));
  const auto timeout_s = d.inputs->find("timeout") != nullptr ? values.integer("timeout") : 60;
  // The launcher's own wait: the rendezvous and the run's slowest collective, with room to end.
  return local_ranks_experiment({cli_program, d.command.front(), args, values.integers("nproc"), d.tables,
                                 std::chrono::seconds(2 * timeout_s)});
}

LabRun::Experiment in_process(const ExperimentDescriptor& d, const schema::InputValues& values) {
  return [&d, values](ProgressSink* sink, const CancelFlag* cancel, const LabRun::TablePublisher& publish) {
    return d.run(values, sink, cancel, [&](const std::vector<schema::Table>& tables) {
      if (!tables.empty()) publish(tables.front());
    });
  };
}

}  // namespace

ExperimentTab::ExperimentTab(history::RunHistory& history, RunGate& gate, views::ExperimentView* view,
                             QString cli_program, QObject* parent)
    : QObject(parent), gate_(gate), view_(view), cli_program_(std::move(cli_program)), lab_(history) {
  connect(&gate_, &RunGate::changed, this, [this] {
    if (is_queued()) show_queue();
  });
  connect(view, &views::ExperimentView::run_requested, this, [this](const schema::InputValues& v) { start(v); });
  connect(view, &views::ExperimentView::cancel_requested, this, &ExperimentTab::cancel);
  connect(view, &views::ExperimentView::run_refused, this, &ExperimentTab::status);  // the window's status bar too
  connect(&lab_, &LabRun::progress, this, &ExperimentTab::say);
  connect(&lab_, &LabRun::table_changed, this, [this](const schema::Table& table) {
    view_->show_tables({table});
    // A job of ranks reports no progress of its own: the rows so far say where it is.
    if (!view_->descriptor().runs_as_ranks) return;
    const QString text =
        tr("%1: %2 row(s) measured").arg(QString::fromStdString(view_->descriptor().name)).arg(table.rows.size());
    say(text);
  });
  connect(&lab_, &LabRun::tables_finished, this, [this](const std::vector<schema::Table>& tables) {
    view_->show_tables(tables);
    emit tables_finished(tables);
  });
  connect(&lab_, &LabRun::finished, this, [this](const schema::Table& table, bool ok, const QString& message) {
    view_->set_running(false);
    const QString name = QString::fromStdString(view_->descriptor().name);
    // When ok, `message` says what else of ours ran during it: the numbers may be slower.
    QString text = ok ? tr("%1 done: %2 row(s)").arg(name).arg(table.rows.size()) : tr("%1: %2").arg(name, message);
    if (ok && !message.isEmpty()) text += tr("; %1").arg(message);
    say(text);
    if (!ok) view_->show_failure(message);
    const RunGate::Ticket ended = ticket_;
    ticket_ = 0;
    emit finished(ok);
    gate_.finished(ended);  // the next in line starts: after this run's last word
  });
  connect(&lab_, &LabRun::history_changed, this, &ExperimentTab::history_changed);
  connect(&lab_, &LabRun::history_problem, this, &ExperimentTab::history_problem);
}

bool ExperimentTab::start(const schema::InputValues& values) {
  if (ticket_ != 0) return false;  // running or queued already
  const ExperimentDescriptor& d = view_->descriptor();
  try {
    if (d.check) d.check(values);
    if (d.runs_as_ranks) check_local_ranks(values);
  } catch (const ConfigError& e) {
    say(tr("Cannot run: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  if (d.runs_as_ranks) {
    if (const auto missing = missing_worker(cli_program_)) {
      say(*missing);
      return false;
    }
  }
  const QString label = QString::fromStdString(d.describe ? d.describe(values) : d.name);
  view_->set_running(true);  // Cancel takes a queued run out of the line
  // In the line the experiment is named: its label alone may not say which it is.
  const QString name = QString::fromStdString(d.name);
  ticket_ = gate_.request(label.startsWith(name) ? label : name + ": " + label,
                          [this, values, label] { begin(values, label); });
  if (is_queued()) show_queue();
  return true;
}

void ExperimentTab::begin(const schema::InputValues& values, const QString& label) {
  const ExperimentDescriptor& d = view_->descriptor();
  view_->clear();
  view_->set_running(true);
  say(tr("Running %1").arg(label));
  lab_.start(label, d.runs_as_ranks ? ranks_experiment(d, values, cli_program_.toStdString()) : in_process(d, values),
             {d.id, values.given_values()});
}

void ExperimentTab::show_queue() {
  say(tr("Queued behind: %1 (Cancel or Esc takes it out of the line)").arg(gate_.ahead_of(ticket_).join(", ")));
}

void ExperimentTab::say(const QString& text) {
  view_->show_status(text);
  emit status(text);
}

void ExperimentTab::cancel() {
  if (gate_.withdraw(ticket_)) {
    ticket_ = 0;
    view_->set_running(false);
    say(tr("%1: the queued run was cancelled before it started").arg(QString::fromStdString(view_->descriptor().name)));
    return;
  }
  if (!lab_.is_running()) return;
  lab_.cancel();
  say(view_->descriptor().runs_as_ranks ? tr("Cancelling: ending every worker")
                                        : tr("Cancelling after the step in progress"));
}

}  // namespace stepscope::gui
