// The main window's stored runs: opening one from the history or a file, showing its results
// and its inputs in their form, saving one to a file.
#include "gui/main_window.h"

#include "gui/lab_tabs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QTabWidget>

#include "cli/recorded_inputs.h"
#include "gui/compare_dialog.h"
#include "gui/history_dock.h"
#include "gui/lab_tabs.h"
#include "imports/import_record.h"
#include "io/run_record_digest.h"
#include "widgets/experiment_group_view.h"
#include "widgets/experiment_view.h"
#include "widgets/run_panel.h"

namespace stepscope::gui {

bool MainWindow::open_run(int64_t run, QString* error) {
  if (session_.is_running()) {
    if (error) *error = tr("a run is in progress");
    return false;
  }
  if (!history_.is_open()) {
    if (error) *error = history_.why_closed();
    return false;
  }
  if (run == 0) {
    const auto runs = history_.runs();
    if (runs.empty()) {
      if (error) *error = tr("the history holds no runs");
      return false;
    }
    run = runs.front().id;
  }
  const auto record = history_.load(run, error);
  if (!record) return false;
  show_record(*record, tr("run %1 from the history").arg(run));
  return true;
}

bool MainWindow::open_run_file(const QString& path, QString* error) {
  if (session_.is_running()) {
    if (error) *error = tr("a run is in progress");
    return false;
  }
  try {
    const RunRecord record = read_run_record_file(path.toStdString());
    show_record(record, path);
    // Shown either way; a file the history cannot keep is said to be unkept, never silently.
    QString why = history_.why_closed();
    if (why.isEmpty() && history_.import_record(record, tr("opened from %1").arg(QFileInfo(path).fileName()), &why) != 0) {
      why.clear();
    }
    history_dock_->refresh();
    report_unkept(why.isEmpty() ? QString() : tr("not kept in the history: %1").arg(why));
    return true;
  } catch (const RunRecordError& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

namespace {

bool shows_any(const ExperimentDescriptor& experiment, const std::vector<schema::Table>& tables) {
  for (const auto& table : tables) {
    for (const auto& own : experiment.tables) {
      if (own.schema == table.schema) return true;
    }
  }
  return false;
}

}  // namespace

void MainWindow::show_record(const RunRecord& record, const QString& source, std::vector<views::RunOutcome> outcomes) {
  view_updates_.drain();  // nothing of an earlier run lands on top of this one
  // Beside what the other tabs show: only the tabs of this run's kind of results change.
  QWidget* shown_in = nullptr;
  if (!record.entries.empty()) {
    for (auto* view : bench_views_) view->clear();
    outcomes_ = std::move(outcomes);
    if (outcomes_.size() != record.entries.size()) {
      outcomes_.clear();
      for (const auto& entry : record.entries) {
        outcomes_.push_back({std::make_shared<const BenchResult>(entry.result), entry.timeline, nullptr});
      }
    }
    for (auto* view : bench_views_) view->add_outcomes(outcomes_);
    if (!bench_views_.empty()) shown_in = bench_views_.front();
  }
  if (!record.tables.empty()) {
    for (auto* view : findChildren<views::ExperimentView*>()) {
      if (!shows_any(view->descriptor(), record.tables)) continue;
      view->clear();  // none of an earlier run's side tables left beside this run's
      if (shown_in == nullptr) shown_in = view;
    }
    for (auto* view : views_) view->show_tables(record.tables);
    // A reopened run feeds the charts of another experiment that read it, as a finished one does.
    for (const auto& link : table_links()) {
      const views::ExperimentView* from = nullptr;
      for (auto* view : findChildren<views::ExperimentView*>()) {
        if (view->descriptor().id == link.from && shows_any(view->descriptor(), record.tables)) from = view;
      }
      if (from == nullptr) continue;
      for (auto* view : findChildren<views::ExperimentView*>()) {
        if (view->descriptor().id == link.to) view->show_linked_tables(record.tables);
      }
    }
  }
  // Its inputs in their form; a benchmark recorded before runs kept them, by its first configuration.
  // An import ran nothing of ours: the run panel keeps what it has.
  const bool imported = !record.entries.empty() && is_import(record.entries.front().result);
  if (!show_inputs(record) && !record.entries.empty() && !imported) panel_->set_config(record.entries.front().result.config);
  // An imported trace is about its kernels and operators, a snapshot about its memory.
  if (auto* view = imported ? imported_view(record.entries.front().result) : nullptr) shown_in = view;
  if (shown_in != nullptr) show_tab_of(shown_in);
  if (imported) {
    // What the file is and where it was taken, not configurations of ours.
    QString kind;
    for (const auto& [key, text] : record.inputs.values) {
      if (key == imports::kImportKindInput) kind = QString::fromStdString(text);
    }
    const BenchResult& first = record.entries.front().result;
    const QString where = !first.device_name.empty() ? QString::fromStdString(first.device_name)
                          : record.entries.size() == 1 ? QString::fromStdString(to_string(first.config.device))
                                                       : tr("%1 devices").arg(record.entries.size());
    progress_label_->setText(tr("Showing %1: %2 of %3, dated %4")
                                 .arg(source, kind.isEmpty() ? tr("a profile") : kind, where,
                                      QString::fromStdString(record.environment.started_at)));
    return;
  }
  progress_label_->setText(tr("Showing %1 (%2 configuration(s), started %3)")
                               .arg(source)
                               .arg(record.entries.empty() ? main_table(record).rows.size() : record.entries.size())
                               .arg(QString::fromStdString(record.environment.started_at)));
}

void MainWindow::show_tab_of(QWidget* view) {
  for (auto* tab : views_) {
    if (tab != view && !tab->isAncestorOf(view)) continue;
    tabs_->setCurrentWidget(tab);
    auto* group = qobject_cast<views::ExperimentGroupView*>(tab);
    auto* experiment = qobject_cast<views::ExperimentView*>(view);
    if (group != nullptr && experiment != nullptr) group->show_view(experiment);
  }
}

bool MainWindow::show_inputs(const RunRecord& record) {
  // The inputs it ran with, in its experiment's form: to look at, or to run again.
  const auto recorded = cli::recorded_inputs(record);
  if (!recorded) return false;
  if (&panel_->form().descriptor() == recorded->experiment) {
    // Set, not raised: the History dock stays in front, for the next run to open or compare.
    panel_->set_values(recorded->values);
    return true;
  }
  bool shown = false;
  for (auto* view : findChildren<views::ExperimentView*>()) {
    if (&view->descriptor() != recorded->experiment) continue;
    view->set_values(recorded->values);
    show_tab_of(view);
    shown = true;
  }
  return shown;
}

void MainWindow::compare_runs(int64_t a, int64_t b) {
  QString error;
  auto ra = history_.load(a, &error);
  auto rb = ra ? history_.load(b, &error) : std::nullopt;
  if (!ra || !rb) {
    QMessageBox::warning(this, tr("Cannot compare"), error);
    return;
  }
  const auto name = [this](int64_t run) {
    for (const auto& summary : history_.runs()) {
      if (summary.id == run) return tr("run %1, %2 (%3)").arg(run).arg(summary.label, summary.started_at);
    }
    return tr("run %1").arg(run);
  };
  auto* dialog = new CompareDialog(std::move(*ra), std::move(*rb), name(a), name(b), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
}

void MainWindow::save_run_file(int64_t run) {
  QString error;
  const auto record = history_.load(run, &error);
  if (!record) {
    QMessageBox::warning(this, tr("Cannot save the run"), error);
    return;
  }
  // .stepscope.json: the extension the desktop's MIME type (resources/mime) opens with the app.
  const QString path = QFileDialog::getSaveFileName(this, tr("Save the run to a file"), "run.stepscope.json",
                                                    tr("Stepscope runs (*.stepscope.json);;JSON (*.json)"));
  if (path.isEmpty()) return;
  try {
    write_run_record_file(path.toStdString(), *record);
  } catch (const RunRecordError& e) {
    QMessageBox::warning(this, tr("Cannot save the run"), QString::fromStdString(e.what()));
  }
}

}  // namespace stepscope::gui
