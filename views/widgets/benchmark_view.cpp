#include "widgets/benchmark_view.h"

#include <QSplitter>
#include <QVBoxLayout>

#include "charts/bench_bar_chart_view.h"
#include "charts/step_time_chart_view.h"
#include "models/bench_table_model.h"
#include "widgets/result_table.h"

namespace stepscope::views {

BenchmarkView::BenchmarkView(QWidget* parent) : ResultView(parent) {
  model_ = new BenchTableModel(this);
  table_ = new ResultTable(model_, "benchmark");
  bars_ = new BenchBarChartView;
  steps_ = new StepTimeChartView;
  add_png_export_menu(bars_, "benchmark_phases");
  add_png_export_menu(steps_, "benchmark_steps");
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(bars_);
  charts->addWidget(steps_);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(table_);
  splitter->addWidget(charts);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({160, 480});  // a few rows of table; the charts get the room
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(splitter, 1);
}

void BenchmarkView::clear() {
  model_->clear();
  refresh_charts();
}

void BenchmarkView::add_outcome(const RunOutcome& outcome) {
  model_->append_result(*outcome.result);
  refresh_charts();
}

void BenchmarkView::refresh_charts() {
  bars_->setResults(model_->results());
  steps_->setResults(model_->results());
}

std::vector<NamedTable> BenchmarkView::tables() const { return {{"benchmark", model_}}; }

std::vector<NamedChart> BenchmarkView::charts() const {
  return {{"benchmark_phases", bars_}, {"benchmark_steps", steps_}};
}

}  // namespace stepscope::views
