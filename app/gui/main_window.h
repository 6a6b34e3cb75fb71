// The main window: the run panel in a dock, one tab per kind of result, progress and
// device facts in the status bar. It presents what its run session reports; nothing here
// waits on the engine.
#pragma once

#include <QMainWindow>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gui/profile_import.h"
#include "gui/result_export.h"
#include "gui/run_gate.h"
#include "gui/run_session.h"
#include "gui/view_update_queue.h"
#include "history/run_history.h"
#include "schema/input_values.h"
#include "widgets/result_view.h"

class QAction;
class QLabel;
class QProgressBar;
class QTabWidget;
class QToolButton;

namespace stepscope::views {
class RunPanel;
}

namespace stepscope::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // `history_path`: the run-history database (empty: the user's data directory).
  explicit MainWindow(const QString& history_path = {}, QWidget* parent = nullptr);
  // The run-history database this window keeps runs in.
  QString history_path() const;
  ~MainWindow() override;

  views::RunPanel& run_panel() { return *panel_; }
  // Runs the step benchmark's configurations these inputs describe (a sweep when lists); the
  // run panel shows them. While another experiment runs it waits in the run gate's line (one
  // run at a time across the window). False, with `error` naming the field, when they cannot run.
  bool run(const schema::InputValues& values, QString* error = nullptr);
  bool is_running() const { return session_.is_running(); }
  // The benchmark waits in line behind another run.
  bool is_queued() const { return gate_.is_queued(bench_ticket_); }
  // Stops the benchmark after its step in progress, or takes it out of the line.
  void cancel_run();
  RunGate& run_gate() { return gate_; }
  // F5 / Ctrl+R: the current tab's experiment (the run panel's benchmark on the Benchmark,
  // Kernels, Memory and Sweep tabs), as its Run button would; false when it cannot run.
  bool run_current_tab();
  // Esc: the current tab's run, queued or running; else the run in progress.
  void cancel_current();
  // LibTorch's CPU threads for runs in this process and the workers it starts, shown in the
  // status bar; `remember` keeps it for the next start.
  void set_cpu_threads(int threads, bool remember);
  // Every table that holds rows as CSV and every chart of an experiment that measured as PNG
  // into `dir` (created); false with `error` set, and nothing written, when any of them cannot
  // be (gui/result_export.h). `report`: what was written and skipped.
  bool export_all(const QString& dir, QString* error, ExportReport* report = nullptr);
  // Whether export_all (and, `with_windows`, save_tab_screenshots) into `dir` could write every
  // file; false with `error` naming the first that cannot. Writes nothing.
  bool check_export(const QString& dir, bool with_windows, QString* error) const;
  // The window as it looks now, as a PNG file (a read-only file is refused, not replaced).
  bool save_screenshot(const QString& path, QString* error);
  // The window once per result tab, as DIR/window_<tab>.png; the current tab is restored.
  bool save_tab_screenshots(const QString& dir, QString* error);
  const std::vector<views::RunOutcome>& outcomes() const { return outcomes_; }  // what the tabs show
  // Shows a stored run (0: the newest) or a run file in the tabs of its kind of results, the
  // other tabs keeping theirs, and brings its tab forward; false with `error`.
  bool open_run(int64_t run, QString* error);
  bool open_run_file(const QString& path, QString* error);
  // Opens a file by what it holds (imports::sniff_profile): a run record at once, a PyTorch
  // trace or memory snapshot imported on the worker thread with progress and Cancel, then shown
  // and kept in the History like a run. Ends with file_opened, also when it fails; with
  // `report_errors` (File > Open), a failure is said in a dialog too (stderr when headless).
  void open_file(const QString& path, bool report_errors = false);
  bool is_importing() const { return import_.is_running(); }
  // Stops the import in progress; nothing of it is shown or kept.
  void cancel_import();
  history::RunHistory& history() { return history_; }
  // Headless (scripted, --quit): no dialogs; what a dialog would say goes to stderr.
  void set_headless(bool headless) { headless_ = headless; }

 signals:
  // The run ended: every configuration ran (`complete`), or it was cancelled or failed.
  void run_finished(bool complete);
  // open_file ended: `ok` when the file is shown; else `error` names the file and what is wrong.
  void file_opened(const QString& path, bool ok, const QString& error);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_menus();
  void build_run_menu();  // main_window_actions.cpp, with the shortcuts
  void begin_run(const schema::InputValues& values, const std::vector<BenchConfig>& configs);
  void update_queue_status();
  void update_threads_status();
  class ExperimentTab* current_experiment() const;  // the current tab's, or null
  void on_progress(const RunProgress& progress);
  void on_outcome(const views::RunOutcome& outcome);
  void on_finished(bool complete, bool cancelled, const QString& error);
  void finish_run(bool complete, bool cancelled, const QString& error);
  // The benchmark's tabs, the one showing first: it is updated first.
  std::vector<views::BenchResultsView*> bench_views_shown_first() const;
  void update_memory_status();
  // `outcomes`: the entries as the views take them, when the worker derived them already.
  void show_record(const RunRecord& record, const QString& source, std::vector<views::RunOutcome> outcomes = {});
  void on_import_finished(const ImportResult& result);  // main_window_files.cpp
  // The tab an import is shown in: Kernels for a trace, Memory for a snapshot; null when none.
  QWidget* imported_view(const BenchResult& result) const;
  void end_open(const QString& path, bool ok, const QString& error, bool report_errors);
  void ask_open_file();
  // A run's inputs in its experiment's form, that tab brought forward.
  // False when the record keeps no inputs this build reads.
  bool show_inputs(const RunRecord& record);
  // Brings forward the tab that holds `view` (and its sub-tab).
  void show_tab_of(QWidget* view);
  // A result the history could not keep: said in the status bar, and on stderr when headless.
  void report_unkept(const QString& unkept);
  QString window_file(const QString& dir, int tab) const;  // DIR/window_<tab>.png
  void save_run_file(int64_t run);
  // Two stored runs side by side (gui/compare_dialog.h), named by their history lines.
  void compare_runs(int64_t a, int64_t b);

  history::RunHistory history_;
  RunSession session_{history_};
  RunGate gate_;
  ProfileImport import_;
  bool import_reports_errors_ = false;  // the import in progress was asked for through File > Open
  RunGate::Ticket bench_ticket_ = 0;  // the run panel's run, queued or running
  std::vector<class ExperimentTab*> experiment_tabs_;
  class HistoryDock* history_dock_ = nullptr;
  views::RunPanel* panel_;
  QTabWidget* tabs_;
  std::vector<views::ResultView*> views_;             // every tab
  std::vector<views::BenchResultsView*> bench_views_;  // the tabs of the benchmark's outcomes
  ViewUpdateQueue view_updates_;  // the bench tabs' updates during a run, one per event-loop turn
  QProgressBar* progress_;
  QLabel* progress_label_;
  QLabel* device_label_;
  QLabel* memory_label_;
  QLabel* queue_label_;
  QLabel* threads_label_;
  QToolButton* cancel_import_;  // in the status bar while an import runs
  std::vector<views::RunOutcome> outcomes_;
  std::map<std::string, double> paces_;  // FLOP/s of the last run on each device
  bool headless_ = false;
  QString history_problem_;  // the last thing the history could not keep of this run
};

}  // namespace stepscope::gui
