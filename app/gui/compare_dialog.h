// Two stored runs side by side, of any experiment: the step benchmark's configurations (and
// each pair's kernels and memory peaks) and every table both runs hold, rows paired by their
// configuration also where a setting was changed ("Context 128 → 256"), with B - A, B / A and
// a note where a figure is missing and why. Every measured step of both runs on one chart.
#pragma once

#include <QDialog>

#include <vector>

#include "io/run_record_json.h"
#include "schema/row_pairing.h"

class QComboBox;
class QTabWidget;

namespace stepscope::views {
class ComparisonModel;
}

namespace stepscope::gui {

class CompareDialog : public QDialog {
  Q_OBJECT

 public:
  CompareDialog(RunRecord a, RunRecord b, const QString& a_name, const QString& b_name, QWidget* parent = nullptr);
  // Null where neither run has step-benchmark configurations.
  const views::ComparisonModel* benchmark_model() const { return benchmark_; }
  // The settings that differ between the runs' paired configurations: "Context 128 → 256".
  QString changed_settings() const { return changed_; }

 private:
  void add_benchmark_tabs(QTabWidget* tabs);
  void show_configuration();

  RunRecord a_, b_;
  std::vector<schema::RowPair> configurations_;  // the benchmark's entries of A and B, paired
  QComboBox* configuration_ = nullptr;
  views::ComparisonModel* benchmark_ = nullptr;
  views::ComparisonModel* kernels_ = nullptr;
  views::ComparisonModel* peaks_ = nullptr;
  QString changed_;
};

}  // namespace stepscope::gui
