// The run history in a dock: every stored run with its state, a filter, and Open, Delete,
// Save to file and Open file. Opening a run shows it in the result tabs as if it just ran.
#pragma once

#include <QWidget>

#include <vector>

#include "history/run_history.h"

class QLineEdit;
class QStandardItemModel;
class QTableView;

namespace stepscope::gui {

class HistoryDock : public QWidget {
  Q_OBJECT

 public:
  HistoryDock(history::RunHistory& history, QWidget* parent = nullptr);
  // The whole list again (a new filter, a run deleted or opened from a file).
  void refresh();
  // One run's row only, added at the top when new: what a run in progress changes. A full
  // refresh reads every run's figures, which with a long history stalled the window at each
  // configuration's end.
  void refresh_run(int64_t run);
  // The id of the selected run (the first, with two selected); 0 when none.
  int64_t selected_run() const;
  std::vector<int64_t> selected_runs() const;

 signals:
  void open_requested(int64_t run);
  void open_file_requested();
  void save_requested(int64_t run);
  void compare_requested(int64_t a, int64_t b);

 private:
  void remove_selected();
  int row_of(int64_t run) const;

  history::RunHistory& history_;
  QLineEdit* filter_;
  QStandardItemModel* model_;
  QTableView* table_;
};

}  // namespace stepscope::gui
