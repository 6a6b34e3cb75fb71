#include "gui/compare_dialog.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

#include <set>

#include "charts/step_time_chart_view.h"
#include "experiments/bench/bench_schema.h"
#include "models/comparison_model.h"
#include "profiling/step_ranges.h"
#include "widgets/result_table.h"

namespace stepscope::gui {

namespace {

std::vector<BenchResult> results_of(const RunRecord& record) {
  std::vector<BenchResult> results;
  for (const auto& e : record.entries) results.push_back(e.result);
  return results;
}

const RunRecordEntry* entry_for(const RunRecord& record, const std::string& configuration) {
  for (const auto& e : record.entries) {
    if (describe(e.result.config) == configuration) return &e;
  }
  return nullptr;
}

}  // namespace

CompareDialog::CompareDialog(RunRecord a, RunRecord b, const QString& a_name, const QString& b_name, QWidget* parent)
    : QDialog(parent), a_(std::move(a)), b_(std::move(b)) {
  setWindowTitle(tr("Compare runs"));
  resize(1200, 800);
  benchmark_ = new views::ComparisonModel(this);
  kernels_ = new views::ComparisonModel(this);
  peaks_ = new views::ComparisonModel(this);
  benchmark_->set_rows(
      views::compare_tables(bench_schema().table(results_of(a_)), bench_schema().table(results_of(b_))));

  configuration_ = new QComboBox;
  std::set<std::string> seen;
  for (const auto* record : {&a_, &b_}) {
    for (const auto& e : record->entries) {
      const std::string key = describe(e.result.config);
      if (seen.insert(key).second) configuration_->addItem(QString::fromStdString(key));
    }
  }
  // Overlaid: each configuration's steps of A, then of B.
  auto* steps = new views::StepTimeChartView;
  views::add_png_export_menu(steps, "compare_steps");
  auto lines = views::build_step_lines(results_of(a_));
  for (auto& line : lines) line.label = "A: " + line.label;
  for (auto line : views::build_step_lines(results_of(b_))) {
    line.label = "B: " + line.label;
    lines.push_back(std::move(line));
  }
  steps->setLines(std::move(lines));

  auto* tabs = new QTabWidget;
  tabs->addTab(new views::ResultTable(benchmark_, "compare_benchmark"), tr("Benchmark"));
  tabs->addTab(steps, tr("Steps"));
  tabs->addTab(new views::ResultTable(kernels_, "compare_kernels"), tr("Kernels (measured window)"));
  tabs->addTab(new views::ResultTable(peaks_, "compare_memory_peaks"), tr("Memory peaks"));
  // Other experiments' tables, where both runs have one of the same schema.
  for (const auto& table : a_.tables) {
    for (const auto& other : b_.tables) {
      if (other.schema != table.schema) continue;
      auto* model = new views::ComparisonModel(this);
      model->set_rows(views::compare_tables(table, other));
      const QString name = QString::fromStdString(table.schema);
      tabs->addTab(new views::ResultTable(model, "compare_" + QString(name).replace('.', '_')), name);
      break;
    }
  }

  auto* header = new QHBoxLayout;
  header->addWidget(new QLabel(tr("<b>A</b>: %1<br><b>B</b>: %2").arg(a_name, b_name)), 1);
  header->addWidget(new QLabel(tr("Kernels and memory of")));
  header->addWidget(configuration_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(header);
  layout->addWidget(tabs, 1);
  connect(configuration_, &QComboBox::currentIndexChanged, this, [this] { show_configuration(); });
  show_configuration();
}

void CompareDialog::show_configuration() {
  const std::string key = configuration_->currentText().toStdString();
  const RunRecordEntry* ea = entry_for(a_, key);
  const RunRecordEntry* eb = entry_for(b_, key);
  const auto profile = [](const RunRecordEntry* e) { return e ? e->result.kernel_profile.get() : nullptr; };
  const auto timeline = [](const RunRecordEntry* e) { return e ? e->timeline.get() : nullptr; };
  kernels_->set_rows(views::compare_kernels(profile(ea), profile(eb), profiling::step_ranges::kMeasuredWindow));
  peaks_->set_rows(views::compare_memory_peaks(timeline(ea), timeline(eb)));
}

}  // namespace stepscope::gui
