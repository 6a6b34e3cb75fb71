// The main window's benchmark run: queued behind the lab's runs, started, shown as it goes (one
// view update per event-loop turn), finished.
#include "gui/main_window.h"

#include <QLabel>
#include <QProgressBar>

#include <algorithm>
#include <iostream>

#include "core/config_error.h"
#include "experiments/bench/bench_duration.h"
#include "experiments/bench/bench_inputs.h"
#include "widgets/result_views.h"
#include "widgets/run_panel.h"

namespace stepscope::gui {

namespace {

QString eta_text(double seconds) {
  if (seconds < 0) return {};
  if (seconds < 60) return QObject::tr(", about %1 s left").arg(qRound(seconds));
  return QObject::tr(", about %1 min left").arg(QString::number(seconds / 60.0, 'f', 1));
}

}  // namespace

bool MainWindow::run(const schema::InputValues& values, QString* error) {
  if (bench_ticket_ != 0) {
    if (error) *error = is_queued() ? tr("the benchmark is queued already") : tr("a run is in progress");
    return false;
  }
  if (is_importing()) {  // its result would replace this run's in the tabs
    if (error) *error = tr("a file is being imported (Esc cancels it)");
    return false;
  }
  std::vector<BenchConfig> configs;
  try {
    configs = expand(bench_spec(values));
  } catch (const ConfigError& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  panel_->set_values(values);
  panel_->set_running(true);  // Cancel takes a queued run out of the line
  QString label = tr("Benchmark %1").arg(QString::fromStdString(describe(configs.front())));
  if (configs.size() > 1) label += tr(" (sweep of %1)").arg(configs.size());
  bench_ticket_ = gate_.request(label, [this, values, configs] { begin_run(values, configs); });
  if (is_queued()) {
    const QString text = tr("Queued behind: %1 (Cancel or Esc takes it out of the line)")
                             .arg(gate_.ahead_of(bench_ticket_).join(", "));
    panel_->form().show_status(text);
    progress_label_->setText(text);
  }
  return true;
}

void MainWindow::begin_run(const schema::InputValues& values, const std::vector<BenchConfig>& configs) {
  view_updates_.drain();
  for (auto* view : views_) view_updates_.post([view] { view->clear(); });
  for (auto* view : bench_views_) view_updates_.post([view, configs] { view->begin_run(configs); });
  outcomes_.clear();
  panel_->set_running(true);
  panel_->form().show_status({});
  progress_->setVisible(true);
  progress_->setRange(0, 0);
  progress_label_->setText(tr("Starting %1").arg(QString::fromStdString(describe(configs.front()))));
  history_problem_.clear();
  session_.start(configs, {"bench", values.given_values()});
}

void MainWindow::cancel_run() {
  if (gate_.withdraw(bench_ticket_)) {
    bench_ticket_ = 0;
    panel_->set_running(false);
    const QString text = tr("Benchmark: the queued run was cancelled before it started");
    panel_->form().show_status(text);
    progress_label_->setText(text);
    return;
  }
  session_.cancel();
}

void MainWindow::on_progress(const RunProgress& p) {
  const Progress& progress = p.progress;
  QString text = QString::fromStdString(progress.config_label) + ": " + QString::fromStdString(to_string(progress.phase));
  if (progress.config_count > 1) text.prepend(QStringLiteral("[%1/%2] ").arg(progress.config_index + 1).arg(progress.config_count));
  if (progress.steps_in_phase > 0) {
    text += QStringLiteral(" %1/%2").arg(progress.step).arg(progress.steps_in_phase);
    progress_->setRange(0, progress.steps_in_phase);
    progress_->setValue(progress.step);
  } else {
    progress_->setRange(0, 0);
  }
  progress_label_->setText(text + eta_text(p.eta_seconds));
}

void MainWindow::on_outcome(const views::RunOutcome& outcome) {
  outcomes_.push_back(outcome);
  // The pace the run panel's duration estimate reads; saved for the next session when the window
  // closes, not here: a settings write ends in an fsync, which under disk load stalled the event
  // loop for 80 ms as a run finished.
  if (const auto pace = measured_pace(*outcome.result)) {
    const std::string device = to_string(outcome.result->config.device);
    paces_[device] = *pace;
    panel_->set_paces(paces_);
  }
  for (auto* view : bench_views_shown_first()) view_updates_.post([view, outcome] { view->add_outcome(outcome); });
}

std::vector<views::BenchResultsView*> MainWindow::bench_views_shown_first() const {
  std::vector<views::BenchResultsView*> ordered = bench_views_;
  std::stable_partition(ordered.begin(), ordered.end(), [](const views::BenchResultsView* view) { return view->isVisible(); });
  return ordered;
}

void MainWindow::on_finished(bool complete, bool cancelled, const QString& error) {
  // After the outcomes' updates: run_finished says every tab shows the whole run.
  view_updates_.post([this, complete, cancelled, error] { finish_run(complete, cancelled, error); });
}

void MainWindow::finish_run(bool complete, bool cancelled, const QString& error) {
  panel_->set_running(false);
  progress_->setVisible(false);
  for (auto* view : bench_views_) view->end_run();
  if (!error.isEmpty()) {
    progress_label_->setText(tr("Failed: %1").arg(error));
    // In the Benchmark tab above what it measured, not in a dialog that hides it.
    for (auto* view : bench_views_) view->show_failure(error);
    if (headless_) std::cerr << "stepscope: run failed: " << error.toStdString() << '\n';
  } else if (cancelled) {
    progress_label_->setText(tr("Cancelled; %1 configuration(s) kept").arg(outcomes_.size()));
  } else {
    progress_label_->setText(tr("Done: %1 configuration(s)").arg(outcomes_.size()));
  }
  // Timings taken beside another Stepscope process's run may be slower than alone: said, and
  // kept in the run's record.
  if (!session_.concurrent_runs().isEmpty()) {
    progress_label_->setText(progress_label_->text() + "; " + session_.concurrent_runs());
    panel_->form().show_status(session_.concurrent_runs());
  }
  report_unkept(!history_.is_open() ? tr("not kept in the history: %1").arg(history_.why_closed()) : history_problem_);
  const RunGate::Ticket ended = bench_ticket_;
  bench_ticket_ = 0;
  emit run_finished(complete);
  gate_.finished(ended);  // the next in line starts: after this run's last word
}

void MainWindow::report_unkept(const QString& unkept) {
  if (unkept.isEmpty()) return;
  progress_label_->setText(progress_label_->text() + "; " + unkept);
  if (headless_) std::cerr << "stepscope: " << unkept.toStdString() << '\n';
}

}  // namespace stepscope::gui
