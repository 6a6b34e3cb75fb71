#include "widgets/kernels_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "charts/kernel_chart_view.h"
#include "models/category_share_model.h"
#include "models/kernel_filter_proxy.h"
#include "models/kernel_table_model.h"
#include "models/step_gpu_usage_model.h"
#include "widgets/outcome_selector.h"
#include "widgets/result_table.h"

namespace stepscope::views {

KernelsView::KernelsView(QWidget* parent) : BenchResultsView(parent) {
  selector_ = new OutcomeSelector;
  range_ = new QComboBox;
  range_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  range_->setToolTip(tr("The CPU range whose kernels are summed (nested ranges count towards their ancestors)"));
  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Filter kernel names"));
  filter_->setClearButtonEnabled(true);
  category_ = new QComboBox;
  category_->addItem(tr("all categories"));
  for (const auto c : profiling::all_kernel_categories()) {
    category_->addItem(QString::fromStdString(profiling::to_string(c)), static_cast<int>(c));
  }
  short_names_ = new QCheckBox(tr("Short names"));
  short_names_->setChecked(true);
  short_names_->setToolTip(tr("Fold template arguments; the tooltip always shows the full name"));
  note_ = new QLabel;
  note_->setWordWrap(true);

  kernels_ = new KernelTableModel(this);
  proxy_ = new KernelFilterProxy(this);
  kernel_table_ = new ResultTable(kernels_, "kernels", proxy_);
  kernel_table_->sortByColumn(1, Qt::DescendingOrder);  // Total Time, largest first
  categories_ = new CategoryShareModel(this);
  steps_ = new StepGpuUsageModel(this);
  auto* category_table = new ResultTable(categories_, "kernel_categories");
  auto* step_table = new ResultTable(steps_, "gpu_steps");

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Configuration")));
  controls->addWidget(selector_);
  controls->addWidget(new QLabel(tr("Range")));
  controls->addWidget(range_);
  controls->addWidget(filter_, 1);
  controls->addWidget(category_);
  controls->addWidget(short_names_);

  category_chart_ = new KernelChartView;
  add_png_export_menu(category_chart_, "kernel_categories");
  auto* side = new QTabWidget;
  side->addTab(category_chart_, tr("Categories by phase"));
  side->addTab(category_table, tr("Categories"));
  side->addTab(step_table, tr("GPU per step"));
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(kernel_table_);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(note_);
  layout->addWidget(splitter, 1);

  connect(selector_, &OutcomeSelector::selection_changed, this, [this] {
    const RunOutcome* o = selector_->selected();
    show_profile(o ? o->result->kernel_profile : live_);
  });
  connect(range_, &QComboBox::currentTextChanged, this, [this](const QString& range) {
    if (range.isEmpty()) return;
    kernels_->set_range(range.toStdString());
    categories_->set_range(range.toStdString());
  });
  connect(filter_, &QLineEdit::textChanged, proxy_, &KernelFilterProxy::set_name_filter);
  connect(category_, &QComboBox::currentIndexChanged, this, [this](int index) {
    proxy_->set_category_filter(index <= 0 ? std::nullopt
                                           : std::optional(static_cast<profiling::KernelCategory>(
                                                 category_->itemData(index).toInt())));
  });
  connect(short_names_, &QCheckBox::toggled, kernels_, &KernelTableModel::set_short_names);
  connect(kernels_, &RangeSummaryModel::ranges_changed, this, [this] { refresh_ranges(); });
  clear();
}

void KernelsView::clear() {
  live_.reset();
  selector_->clear_outcomes();
  show_profile(nullptr);
}

void KernelsView::add_outcome(const RunOutcome& outcome) {
  selector_->add_outcome(outcome);
  live_.reset();
}

void KernelsView::show_live_profile(std::shared_ptr<const profiling::KernelProfile> profile) {
  live_ = std::move(profile);
  if (!selector_->selected()) show_profile(live_);
}

void KernelsView::show_profile(std::shared_ptr<const profiling::KernelProfile> profile) {
  if (!profile) {
    note_->setText(tr("Run with the kernel profiler on to see which kernels take the GPU's time."));
  } else if (!profile->gpu_activity_recorded) {
    note_->setText(tr("No GPU activity was recorded (%1). The CPU time of each range is in the Benchmark tab's "
                      "exports; kernel tables need a CUDA device.")
                       .arg(QString::fromStdString(profile->source_message.empty() ? "CPU run" : profile->source_message)));
  } else {
    QString text = tr("%1 measured step(s)").arg(profile->measured_steps);
    if (profile->dropped_records > 0) text += tr("; %1 records dropped").arg(profile->dropped_records);
    if (profile->unattributed_kernels > 0) text += tr("; %1 kernels outside every range").arg(profile->unattributed_kernels);
    note_->setText(text);
  }
  kernels_->set_profile(profile);
  categories_->set_profile(profile);
  const profiling::KernelProfile none;
  steps_->set_profile(profile ? *profile : none);
  category_chart_->setProfile(profile ? *profile : none);
  refresh_ranges();
}

void KernelsView::refresh_ranges() {
  const QStringList ranges = kernels_->ranges();
  const QString current = range_->currentText();
  QStringList shown;
  for (int i = 0; i < range_->count(); ++i) shown << range_->itemText(i);
  if (shown == ranges) return;
  const QSignalBlocker block(range_);
  range_->clear();
  range_->addItems(ranges);
  const int keep = range_->findText(current);
  range_->setCurrentIndex(keep >= 0 ? keep : 0);
  if (keep < 0 && !ranges.isEmpty()) {
    kernels_->set_range(ranges.front().toStdString());
    categories_->set_range(ranges.front().toStdString());
  }
}

std::vector<NamedTable> KernelsView::tables() const {
  return {{"kernels", kernel_table_->shown_model()}, {"kernel_categories", categories_}, {"gpu_steps", steps_}};
}

std::vector<NamedChart> KernelsView::charts() const {
  return {{"kernel_categories", category_chart_}};
}

}  // namespace stepscope::views
