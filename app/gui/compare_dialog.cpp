#include "gui/compare_dialog.h"

#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QScreen>
#include <QTabWidget>
#include <QVBoxLayout>

#include "charts/step_time_chart_view.h"
#include "experiments/bench/bench_schema.h"
#include "io/run_record_digest.h"
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

const RunRecordEntry* entry_at(const RunRecord& record, std::optional<size_t> index) {
  return index ? &record.entries[*index] : nullptr;
}

// Why a configuration of run `side` has no memory peaks to compare; empty when it has them.
QString why_no_peaks(const RunRecordEntry* e, const QString& side) {
  if (e == nullptr) return CompareDialog::tr("%1 has no such configuration").arg(side);
  if (!e->result.config.profile_memory) return CompareDialog::tr("%1 ran without the memory profiler").arg(side);
  if (!e->timeline) return CompareDialog::tr("%1 kept no memory timeline").arg(side);
  return {};
}

QString why_no_kernels(const RunRecordEntry* e, const QString& side) {
  if (e == nullptr) return CompareDialog::tr("%1 has no such configuration").arg(side);
  if (!e->result.config.profile_kernels) return CompareDialog::tr("%1 ran without the kernel profiler").arg(side);
  if (!e->result.kernel_profile) return CompareDialog::tr("%1 kept no kernel profile").arg(side);
  return {};
}

}  // namespace

CompareDialog::CompareDialog(RunRecord a, RunRecord b, const QString& a_name, const QString& b_name, QWidget* parent)
    : QDialog(parent), a_(std::move(a)), b_(std::move(b)) {
  setWindowTitle(tr("Compare runs"));
  // As large as asked, within the screen (a laptop's 1280 x 720 included).
  const QScreen* screen = QGuiApplication::primaryScreen();
  resize(screen != nullptr ? QSize(1200, 800).boundedTo(screen->availableGeometry().size() - QSize(40, 60))
                           : QSize(1200, 800));
  auto* tabs = new QTabWidget;
  QStringList changed;
  if (!a_.entries.empty() || !b_.entries.empty()) {
    add_benchmark_tabs(tabs);
    const schema::Table ta = main_table(a_);
    const QString text = views::changes_text(ta, schema::distinct_changes(configurations_));
    if (!text.isEmpty()) changed << text;
  }
  // Other experiments' tables, where both runs have one of the same schema.
  for (const auto& table : a_.tables) {
    for (const auto& other : b_.tables) {
      if (other.schema != table.schema) continue;
      auto* model = new views::ComparisonModel(this);
      const QString name = QString::fromStdString(table.schema);
      tabs->addTab(new views::ResultTable(model, "compare_" + QString(name).replace('.', '_')), name);
      model->set_rows(views::compare_tables(table, other));  // after the table exists: it fits its columns
      const QString text = views::changes_text(table, schema::distinct_changes(schema::pair_rows(table, other)));
      if (!text.isEmpty() && !changed.contains(text)) changed << text;
      break;
    }
  }
  changed_ = changed.join(QStringLiteral("; "));
  if (tabs->count() == 0) {
    auto* none = new QLabel(tr("These runs hold no results of the same kind: A is %1, B is %2.")
                                .arg(QString::fromStdString(main_table(a_).schema),
                                     QString::fromStdString(main_table(b_).schema)));
    none->setAlignment(Qt::AlignCenter);
    tabs->addTab(none, tr("Nothing to compare"));
  }

  auto* header = new QHBoxLayout;
  QString names = tr("<b>A</b>: %1<br><b>B</b>: %2").arg(a_name.toHtmlEscaped(), b_name.toHtmlEscaped());
  names += changed_.isEmpty() ? tr("<br>Same settings: rows paired by configuration")
                              : tr("<br>Changed from A to B: %1").arg(changed_.toHtmlEscaped());
  auto* names_label = new QLabel(names);
  names_label->setObjectName("compareHeader");
  header->addWidget(names_label, 1);
  if (configuration_ != nullptr) {
    header->addWidget(new QLabel(tr("Kernels and memory of")));
    header->addWidget(configuration_);
  }
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(header);
  layout->addWidget(tabs, 1);
}

void CompareDialog::add_benchmark_tabs(QTabWidget* tabs) {
  benchmark_ = new views::ComparisonModel(this);
  kernels_ = new views::ComparisonModel(this);
  peaks_ = new views::ComparisonModel(this);
  const schema::Table ta = main_table(a_), tb = main_table(b_);
  configurations_ = schema::pair_rows(ta, tb);

  configuration_ = new QComboBox;
  configuration_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  for (const auto& pair : configurations_) configuration_->addItem(views::identity_of(ta, tb, pair));
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

  tabs->addTab(new views::ResultTable(benchmark_, "compare_benchmark"), tr("Benchmark"));
  tabs->addTab(steps, tr("Steps"));
  tabs->addTab(new views::ResultTable(kernels_, "compare_kernels"), tr("Kernels (measured window)"));
  tabs->addTab(new views::ResultTable(peaks_, "compare_memory_peaks"), tr("Memory peaks"));
  benchmark_->set_rows(views::compare_tables(ta, tb));  // after the table exists: it fits its columns
  connect(configuration_, &QComboBox::currentIndexChanged, this, [this] { show_configuration(); });
  show_configuration();
}

void CompareDialog::show_configuration() {
  const int index = configuration_->currentIndex();
  if (index < 0 || static_cast<size_t>(index) >= configurations_.size()) return;
  const auto& pair = configurations_[static_cast<size_t>(index)];
  const RunRecordEntry* ea = entry_at(a_, pair.a);
  const RunRecordEntry* eb = entry_at(b_, pair.b);
  const auto profile = [](const RunRecordEntry* e) { return e ? e->result.kernel_profile.get() : nullptr; };
  const auto timeline = [](const RunRecordEntry* e) { return e ? e->timeline.get() : nullptr; };
  kernels_->set_rows(views::compare_kernels(profile(ea), profile(eb), profiling::step_ranges::kMeasuredWindow,
                                            {why_no_kernels(ea, "A"), why_no_kernels(eb, "B")}));
  peaks_->set_rows(
      views::compare_memory_peaks(timeline(ea), timeline(eb), {why_no_peaks(ea, "A"), why_no_peaks(eb, "B")}));
}

}  // namespace stepscope::gui
