#include "widgets/sweep_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <set>

#include "charts/sweep_chart_view.h"
#include "models/bench_table_model.h"
#include "widgets/result_table.h"

namespace stepscope::views {

SweepView::SweepView(QWidget* parent) : BenchResultsView(parent) {
  axis_ = new QComboBox;
  axis_->addItem(tr("model size"), static_cast<int>(SweepAxis::model_size));
  axis_->addItem(tr("context length"), static_cast<int>(SweepAxis::context));
  log_scale_ = new QCheckBox(tr("Log scale"));
  chart_ = new SweepChartView;
  add_png_export_menu(chart_, "sweep");
  model_ = new BenchTableModel(this);
  auto* table = new ResultTable(model_, "sweep");
  table->set_empty_text(tr("No sweep yet. Type lists in the run panel (models small,medium or contexts 256,1024) and "
                           "run the step benchmark (F5): the step time against size shows here."));

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Step time against")));
  controls->addWidget(axis_);
  controls->addWidget(log_scale_);
  controls->addStretch(1);
  note_ = new QLabel;
  note_->setVisible(false);
  controls->addWidget(note_);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(chart_);
  splitter->addWidget(table);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);

  connect(axis_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(log_scale_, &QCheckBox::toggled, chart_, &SweepChartView::setLogScale);
}

void SweepView::clear() {
  model_->clear();
  refresh();
}

void SweepView::add_outcome(const RunOutcome& outcome) { add_outcomes({outcome}); }

void SweepView::add_outcomes(const std::vector<RunOutcome>& outcomes) {
  std::vector<BenchResult> results;
  for (const auto& outcome : outcomes) results.push_back(*outcome.result);
  model_->append_results(std::move(results));
  // Follow what the sweep varies: context lengths when every configuration is one model.
  std::set<std::string> models;
  for (const auto& r : model_->results()) models.insert(r.config.model.name);
  const QSignalBlocker block(axis_);
  axis_->setCurrentIndex(models.size() > 1 ? 0 : 1);
  refresh();
}

void SweepView::refresh() {
  chart_->setResults(model_->results(), static_cast<SweepAxis>(axis_->currentData().toInt()));
  const size_t hidden = chart_->data().hidden_lines;
  note_->setVisible(hidden > 0);
  note_->setText(tr("The chart draws the first %1 lines; %2 more are in the table.").arg(kMostSweepLines).arg(hidden));
}

std::vector<NamedTable> SweepView::tables() const { return {{"sweep", model_}}; }

std::vector<NamedChart> SweepView::charts() const { return {{"sweep", chart_}}; }

}  // namespace stepscope::views
