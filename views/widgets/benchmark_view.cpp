#include "widgets/benchmark_view.h"

#include <QLabel>
#include <QSplitter>

#include <algorithm>
#include <QVBoxLayout>

#include "charts/bench_bar_chart_view.h"
#include "charts/step_time_chart_view.h"
#include "models/bench_table_model.h"
#include "widgets/failure_banner.h"
#include "widgets/result_table.h"

namespace stepscope::views {

BenchmarkView::BenchmarkView(QWidget* parent) : BenchResultsView(parent) {
  model_ = new BenchTableModel(this);
  table_ = new ResultTable(model_, "benchmark");
  table_->set_empty_text(tr("No configurations measured yet. Set the model, context, batch and precision in the run "
                            "panel and run the step benchmark (F5): each configuration adds a row as it finishes."));
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
  chart_note_ = new QLabel;
  chart_note_->setVisible(false);
  failure_ = new FailureBanner;
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(failure_);
  layout->addWidget(chart_note_);
  layout->addWidget(splitter, 1);
}

void BenchmarkView::clear() {
  failure_->dismiss();
  model_->clear();
  refresh_charts();
}

void BenchmarkView::add_outcome(const RunOutcome& outcome) {
  model_->append_result(*outcome.result);
  refresh_charts();
}

void BenchmarkView::add_outcomes(const std::vector<RunOutcome>& outcomes) {
  std::vector<BenchResult> results;
  results.reserve(outcomes.size());
  for (const auto& outcome : outcomes) results.push_back(*outcome.result);
  model_->append_results(std::move(results));
  refresh_charts();
}

// A chart of thousands of bars or lines reads as noise and draws for minutes: the charts take
// the first configurations, the table keeps every one.
void BenchmarkView::refresh_charts() {
  const auto& all = model_->results();
  const size_t shown = std::min(all.size(), kMostCharted);
  const std::vector<BenchResult> charted(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(shown));
  bars_->setResults(charted);
  steps_->setResults(charted);
  chart_note_->setVisible(shown < all.size());
  chart_note_->setText(tr("The charts show the first %1 of %2 configurations; the table lists them all.")
                           .arg(shown)
                           .arg(all.size()));
}

std::vector<NamedTable> BenchmarkView::tables() const { return {{"benchmark", model_}}; }

std::vector<NamedChart> BenchmarkView::charts() const {
  return {{"benchmark_phases", bars_}, {"benchmark_steps", steps_}};
}

void BenchmarkView::show_failure(const QString& message) { failure_->show_failure(tr("The step benchmark"), message); }

QString BenchmarkView::failure_text() const { return failure_->shown_text(); }

}  // namespace stepscope::views
