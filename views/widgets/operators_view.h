// The Operators tab: which PyTorch operators a profiled step calls in each range, what they
// cost on the CPU, and on a GPU the kernels each launched — a tree of range → operator (with
// its input shapes) → kernel, sortable within each level, filtered by text, with or without
// input shapes. Filled by the step benchmark with --profile ops; says how to get there when
// the shown configuration has no operator profile.
#pragma once

#include "models/bench_run_progress.h"
#include "widgets/result_view.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTreeView;

namespace stepscope::views {

class SchemaTableModel;
class OperatorTreeModel;
class OperatorTreeProxy;
class OutcomeSelector;

class OperatorsView : public BenchResultsView {
  Q_OBJECT

 public:
  explicit OperatorsView(QWidget* parent = nullptr);
  void clear() override;
  void add_outcome(const RunOutcome& outcome) override;
  void begin_run(const std::vector<BenchConfig>& configs) override;
  void end_run() override;
  // The operators table (one row per operator and input shapes in each range) and the
  // operator → kernel table, of the shown configuration, whole: filters do not apply.
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override { return {}; }

  OperatorTreeModel& tree_model() { return *tree_; }
  OperatorTreeProxy& tree_proxy() { return *proxy_; }
  QTreeView& tree_view() { return *view_; }
  QLineEdit& filter_field() { return *filter_; }
  QCheckBox& group_by_shapes_box() { return *group_by_shapes_; }
  // True while the tab says why it has nothing to show (and how to profile operators).
  bool shows_empty_state() const;
  QString empty_text() const;
  QString note() const;
  // Ranges open, operators closed: each range's operators in view, their kernels one click away.
  void expand_ranges();

 private:
  void show_profile(std::shared_ptr<const profiling::OperatorProfile> profile);
  void show_empty(const QString& text);
  // Ranges open (every row while a filter is set), then the columns fitted to what shows.
  void open_rows();
  void fit_columns();
  int header_width(int column) const;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void show_column_menu(const QPoint& at);

  OutcomeSelector* selector_;
  QWidget* tree_controls_;
  QLineEdit* filter_;
  QCheckBox* group_by_shapes_;
  QLabel* note_;
  QStackedWidget* pages_;
  QLabel* empty_;
  QTreeView* view_;
  bool default_sort_ = true;  // until the first profile shows: then the user's sort stays
  bool fitting_ = false;      // fit_columns is sizing the columns
  bool expanding_ = false;    // expand_ranges is opening rows: fitted once, after
  bool user_sized_ = false;   // the user dragged a column's edge
  OperatorTreeModel* tree_;
  OperatorTreeProxy* proxy_;
  // For export, as the CLI's operators.csv and operator_kernels.csv (the engine's schemas).
  SchemaTableModel* table_;
  SchemaTableModel* kernel_table_;
  BenchRunProgress run_;
};

}  // namespace stepscope::views
