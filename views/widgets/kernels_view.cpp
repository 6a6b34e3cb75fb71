#include "widgets/kernels_view.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <sstream>

#include "charts/kernel_chart_view.h"
#include "charts/range_phase_chart_view.h"
#include "export/file_output.h"
#include "io/chrome_trace_export.h"
#include "models/category_share_model.h"
#include "models/format.h"
#include "models/kernel_filter_proxy.h"
#include "models/kernel_table_model.h"
#include "models/profiled_steps_note.h"
#include "models/range_time_model.h"
#include "models/step_gpu_usage_model.h"
#include "profiling/step_ranges.h"
#include "widgets/outcome_selector.h"
#include "widgets/result_table.h"

namespace stepscope::views {

namespace {

enum Page { kKernelPage, kCpuPage };

// What fills the tab, said where it is empty: the profiler to tick, and the run to start.
QString how_to_profile() {
  return QObject::tr("Tick Profile: kernels in the run panel and run the step benchmark (F5)");
}

}  // namespace

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
  note_->setObjectName("kernelsNote");
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  kernels_ = new KernelTableModel(this);
  proxy_ = new KernelFilterProxy(this);
  kernel_table_ = new ResultTable(kernels_, "kernels", proxy_);
  kernel_table_->sortByColumn(1, Qt::DescendingOrder);  // Total Time, largest first
  categories_ = new CategoryShareModel(this);
  steps_ = new StepGpuUsageModel(this);
  auto* category_table = new ResultTable(categories_, "kernel_categories");
  auto* step_table = new ResultTable(steps_, "gpu_steps");
  kernel_table_->set_empty_text(
      tr("No kernels to list. %1 on a CUDA device to see every kernel of the chosen range.").arg(how_to_profile()));
  category_table->set_empty_text(tr("No kernels: the GPU time of the range by kernel category shows here."));
  step_table->set_empty_text(tr("No kernels: each measured step's GPU busy and idle time shows here."));

  export_trace_ = new QAction(tr("Export Perfetto &trace..."), this);
  connect(export_trace_, &QAction::triggered, this, &KernelsView::ask_trace_path);
  auto* trace_button = new QToolButton;
  trace_button->setDefaultAction(export_trace_);
  trace_button->setText(tr("Perfetto trace..."));

  kernel_controls_ = new QWidget;
  auto* kernel_controls = new QHBoxLayout(kernel_controls_);
  kernel_controls->setContentsMargins(0, 0, 0, 0);
  kernel_controls->addWidget(new QLabel(tr("Range")));
  kernel_controls->addWidget(range_);
  kernel_controls->addWidget(filter_, 1);
  kernel_controls->addWidget(category_);
  kernel_controls->addWidget(short_names_);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Configuration")));
  controls->addWidget(selector_);
  controls->addWidget(kernel_controls_, 1);
  controls->addWidget(trace_button);

  category_chart_ = new KernelChartView;
  add_png_export_menu(category_chart_, "kernel_categories");
  auto* side = new QTabWidget;
  side->addTab(category_chart_, tr("Categories by phase"));
  side->addTab(category_table, tr("Categories"));
  side->addTab(step_table, tr("GPU per step"));
  auto* kernel_page = new QSplitter(Qt::Vertical);
  kernel_page->addWidget(kernel_table_);
  kernel_page->addWidget(side);
  kernel_page->setStretchFactor(0, 3);
  kernel_page->setStretchFactor(1, 1);

  range_times_ = new RangeTimeModel(this);
  range_table_ = new ResultTable(range_times_, "cpu_ranges");
  range_table_->set_empty_text(tr("No ranges timed. %1 to time forward, backward, the optimizer step and the ranges "
                                  "inside them (attention, feed-forward, LM head) on the CPU.")
                                   .arg(how_to_profile()));
  range_chart_ = new RangePhaseChartView;
  add_png_export_menu(range_chart_, "cpu_range_phases");
  auto* cpu_page = new QSplitter(Qt::Vertical);
  cpu_page->addWidget(range_table_);
  cpu_page->addWidget(range_chart_);
  cpu_page->setStretchFactor(0, 1);
  cpu_page->setStretchFactor(1, 1);
  cpu_page->setSizes({360, 260});  // a model's dozen ranges, and the bars below them

  pages_ = new QStackedWidget;
  pages_->insertWidget(kKernelPage, kernel_page);
  pages_->insertWidget(kCpuPage, cpu_page);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(note_);
  layout->addWidget(pages_, 1);

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
  // The default experience is the CPU's: before any profile, its page says what would fill it.
  show_page(kCpuPage);
  clear();
}

void KernelsView::clear() {
  live_.reset();
  run_.end();
  selector_->clear_outcomes();
  show_profile(nullptr);
}

void KernelsView::add_outcome(const RunOutcome& outcome) {
  run_.config_finished();
  selector_->add_outcome(outcome);
  live_.reset();
}

void KernelsView::begin_run(const std::vector<BenchConfig>& configs) {
  run_.begin(configs);
  if (!selector_->selected() && !live_) show_profile(nullptr);
}

void KernelsView::end_run() {
  run_.end();
  if (!selector_->selected() && !live_) show_profile(nullptr);
}

void KernelsView::show_live_profile(std::shared_ptr<const profiling::KernelProfile> profile) {
  live_ = std::move(profile);
  if (!selector_->selected()) show_profile(live_);
}

void KernelsView::show_page(int page) {
  pages_->setCurrentIndex(page);
  kernel_controls_->setVisible(page == kKernelPage);  // range, filters: the kernels' own
}

bool KernelsView::shows_cpu_ranges() const { return pages_->currentIndex() == kCpuPage; }

QString KernelsView::note() const { return note_->text(); }

void KernelsView::show_profile(std::shared_ptr<const profiling::KernelProfile> profile) {
  const profiling::KernelProfile none;
  const profiling::KernelProfile& shown = profile ? *profile : none;
  kernels_->set_profile(profile);
  categories_->set_profile(profile);
  steps_->set_profile(shown);
  category_chart_->setProfile(shown);
  refresh_ranges();
  show_cpu_ranges(shown);
  refresh_trace_action();

  const bool finished = selector_->selected() != nullptr;
  if (!profile && !finished && run_.running()) {
    const BenchConfig& running = *run_.running();
    QString text = coming_profile_note(running, StepProfiler::kernels);
    if (!running.profile_kernels) text += ' ' + tr("To see where its step's time goes, tick Profile: kernels for a next run.");
    note_->setText(text);
    return;
  }
  if (!profile) {
    note_->setText(finished ? tr("This configuration ran without the kernel profiler. %1 again to see where its "
                                 "step's time goes.")
                                  .arg(how_to_profile())
                            : tr("%1 to see where a step's time goes: on a CPU, the time of each range (forward, "
                                 "backward, optimizer step, attention, feed-forward, LM head); on a GPU, every "
                                 "kernel of each range.")
                                  .arg(how_to_profile()));
    return;
  }
  if (profile->gpu_activity_recorded) {
    show_page(kKernelPage);
    const RunOutcome* o = selector_->selected();
    QString text = o != nullptr && is_import(*o->result)
                       ? tr("%1: %2 profiled step(s); the ranges are its record_function annotations")
                             .arg(QString::fromStdString(describe(*o->result)))
                             .arg(profile->measured_steps)
                       : tr("%1 measured step(s)").arg(profile->measured_steps);
    if (o != nullptr && !profiled_steps_note(*o->result).isEmpty()) {
      text = tr("Kernels %1").arg(profiled_steps_note(*o->result));
    }
    if (profile->dropped_records > 0) text += tr("; %1 records dropped").arg(profile->dropped_records);
    if (profile->unattributed_kernels > 0) text += tr("; %1 kernels outside every range").arg(profile->unattributed_kernels);
    note_->setText(text);
    return;
  }
  // A live GPU run records no kernels before its first measured step: the page stays until it does.
  if (profile->cpu_ranges.empty() && !finished) {
    note_->setText(tr("Profiling: the first measured step is still to come."));
    return;
  }
  show_page(kCpuPage);
  const QString why = QString::fromStdString(profile->source_message.empty() ? "no GPU activity was recorded"
                                                                             : profile->source_message);
  QString text = tr("No GPU kernels to list (%1). CPU time per range over %2 measured step(s):").arg(why).arg(profile->measured_steps);
  // The largest range directly inside the forward, as the command line's digest reads it.
  const auto& rows = range_times_->rows();
  const RangeTimeRow* largest = nullptr;
  int forward_depth = -1;
  for (const auto& row : rows) {
    if (row.range == QLatin1String(profiling::step_ranges::kForward)) forward_depth = row.depth;
    if (row.phase != QLatin1String(profiling::step_ranges::kForward) || row.depth != forward_depth + 1) continue;
    if (!largest || row.ns_per_step > largest->ns_per_step) largest = &row;
  }
  if (largest && largest->phase_percent >= 0) {
    text += tr(" %1 takes %2 of the forward pass.").arg(largest->range, format_percent(largest->phase_percent));
  }
  // The step in progress has ranges closed, but is not over: its share is in part.
  if (!finished) text += tr(" Live: the figures settle when the configuration finishes.");
  note_->setText(text);
}

void KernelsView::show_cpu_ranges(const profiling::KernelProfile& profile) {
  RangePhaseData data = build_range_phase_data(profile);
  range_times_->set_rows(data.rows);
  if (profile.cpu_ranges.empty()) data.note = tr("No ranges timed");
  range_chart_->setData(std::move(data));
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

void KernelsView::refresh_trace_action() {
  const RunOutcome* o = selector_->selected();
  const bool has_trace = o != nullptr && o->result->trace != nullptr;
  export_trace_->setEnabled(has_trace);
  export_trace_->setToolTip(
      has_trace ? tr("The shown configuration's CPU ranges (and GPU kernels) as a trace for ui.perfetto.dev")
      : o == nullptr
          ? tr("Once a configuration profiled with kernels finishes, its trace exports from here")
          : tr("This configuration has no trace: %1 (runs reopened from the history keep none)").arg(how_to_profile()));
}

bool KernelsView::export_trace(const QString& path, QString* error) const {
  const RunOutcome* o = selector_->selected();
  if (o == nullptr || o->result->trace == nullptr) {
    if (error) *error = tr("the shown configuration has no trace: %1").arg(how_to_profile());
    return false;
  }
  std::ostringstream out;
  write_chrome_trace(out, o->result->trace->ranges, o->result->trace->activity,
                     "stepscope " + o->result->config.model.name);
  const std::string json = out.str();
  return write_output_file(path, QByteArray(json.data(), static_cast<qsizetype>(json.size())), error);
}

void KernelsView::ask_trace_path() {
  const RunOutcome* o = selector_->selected();
  if (o == nullptr) return;
  const QString name = QString::fromStdString(describe(*o->result)).replace(' ', '-') + ".trace.json";
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Perfetto trace"), name, tr("Trace (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  if (!export_trace(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

QList<QAction*> KernelsView::file_actions() const { return {export_trace_}; }

std::vector<NamedTable> KernelsView::tables() const {
  return {{"kernels", kernel_table_->shown_model()},
          {"kernel_categories", categories_},
          {"gpu_steps", steps_},
          {"cpu_ranges", range_table_->shown_model()}};
}

std::vector<NamedChart> KernelsView::charts() const {
  // The chart of the page shown: the other page's has nothing of this run to draw.
  if (shows_cpu_ranges()) return {{"cpu_range_phases", range_chart_}};
  return {{"kernel_categories", category_chart_}};
}

}  // namespace stepscope::views
