// The Benchmark tab: one row per configuration (phases as mean ± std, throughput, MFU, peak
// memory), the phases as bars with their spread, and every measured step as a line.
#pragma once

#include "widgets/result_view.h"

class QLabel;

namespace stepscope::views {

class BenchBarChartView;
class BenchTableModel;
class StepTimeChartView;
class ResultTable;

class BenchmarkView : public BenchResultsView {
  Q_OBJECT

 public:
  explicit BenchmarkView(QWidget* parent = nullptr);
  void clear() override;
  void add_outcome(const RunOutcome& outcome) override;
  void add_outcomes(const std::vector<RunOutcome>& outcomes) override;
  void show_failure(const QString& message) override;
  QString failure_text() const;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;
  const BenchTableModel& model() const { return *model_; }

 private:
  void refresh_charts();
  static constexpr size_t kMostCharted = 64;

  BenchTableModel* model_;
  ResultTable* table_;
  BenchBarChartView* bars_;
  StepTimeChartView* steps_;
  QLabel* chart_note_;
  class FailureBanner* failure_;
};

}  // namespace stepscope::views
