// Two stored runs side by side: benchmark, kernel and memory-peak tables with B - A and B / A
// columns (each exportable), and every measured step of both runs on one chart.
#pragma once

#include <QDialog>

#include "io/run_record_json.h"

class QComboBox;

namespace stepscope::views {
class ComparisonModel;
}

namespace stepscope::gui {

class CompareDialog : public QDialog {
  Q_OBJECT

 public:
  CompareDialog(RunRecord a, RunRecord b, const QString& a_name, const QString& b_name, QWidget* parent = nullptr);
  const views::ComparisonModel& benchmark_model() const { return *benchmark_; }

 private:
  void show_configuration();

  RunRecord a_, b_;
  QComboBox* configuration_;
  views::ComparisonModel* benchmark_;
  views::ComparisonModel* kernels_;
  views::ComparisonModel* peaks_;
};

}  // namespace stepscope::gui
