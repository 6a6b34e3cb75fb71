// The main window: the run panel in a dock, one tab per kind of result, progress and
// device facts in the status bar. It presents what its run session reports; nothing here
// waits on the engine.
#pragma once

#include <QMainWindow>

#include <functional>
#include <vector>

#include "gui/run_session.h"
#include "history/run_history.h"
#include "schema/input_values.h"
#include "widgets/result_view.h"

class QLabel;
class QProgressBar;
class QTabWidget;

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
  // run panel shows them. False, with `error` naming the field, when they cannot run.
  bool run(const schema::InputValues& values, QString* error = nullptr);
  bool is_running() const { return session_.is_running(); }
  // Every table as CSV and every chart as PNG into `dir` (created); false with `error` set,
  // and nothing written, when any of them cannot be (gui/result_export.h).
  bool export_all(const QString& dir, QString* error);
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
  history::RunHistory& history() { return history_; }
  // Headless (scripted, --quit): no dialogs; what a dialog would say goes to stderr.
  void set_headless(bool headless) { headless_ = headless; }

 signals:
  // The run ended: every configuration ran (`complete`), or it was cancelled or failed.
  void run_finished(bool complete);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_menus();
  void on_progress(const RunProgress& progress);
  void on_outcome(const views::RunOutcome& outcome);
  void on_finished(bool complete, bool cancelled, const QString& error);
  void update_memory_status();
  void show_record(const RunRecord& record, const QString& source);
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
  class HistoryDock* history_dock_ = nullptr;
  views::RunPanel* panel_;
  QTabWidget* tabs_;
  std::vector<views::ResultView*> views_;             // every tab
  std::vector<views::BenchResultsView*> bench_views_;  // the tabs of the benchmark's outcomes
  QProgressBar* progress_;
  QLabel* progress_label_;
  QLabel* device_label_;
  QLabel* memory_label_;
  std::vector<views::RunOutcome> outcomes_;
  bool headless_ = false;
  QString history_problem_;  // the last thing the history could not keep of this run
};

}  // namespace stepscope::gui
