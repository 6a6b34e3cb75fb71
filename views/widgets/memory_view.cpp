#include "widgets/memory_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include "charts/memory_chart_view.h"
#include "models/format.h"
#include "models/largest_allocations_model.h"
#include "models/memory_peaks_model.h"
#include "widgets/outcome_selector.h"
#include "widgets/result_table.h"

namespace stepscope::views {

namespace {

// The slider moves in powers of two: from every allocation (0) to 4 GiB and more (32).
int64_t threshold_bytes(int position) { return position <= 0 ? 0 : int64_t{1} << (position + 1); }

}  // namespace

MemoryView::MemoryView(QWidget* parent) : BenchResultsView(parent) {
  selector_ = new OutcomeSelector;
  note_ = new QLabel;
  note_->setWordWrap(true);
  threshold_ = new QSlider(Qt::Horizontal);
  threshold_->setRange(0, 32);
  threshold_->setToolTip(tr("Hide allocation groups smaller than this (memory_viz's detail slider)"));
  threshold_label_ = new QLabel;
  chart_ = new MemoryChartView;
  add_png_export_menu(chart_, "memory_timeline");
  peaks_ = new MemoryPeaksModel(this);
  largest_ = new LargestAllocationsModel(this);
  auto* peaks_table = new ResultTable(peaks_, "memory_peaks");
  auto* largest_table = new ResultTable(largest_, "largest_allocations");
  const QString how = tr("Tick Profile: memory in the run panel and run the step benchmark (F5)");
  peaks_table->set_empty_text(tr("No memory recorded. %1 to see the memory at each phase's peak.").arg(how));
  largest_table->set_empty_text(tr("No memory recorded. %1 to see the largest allocations.").arg(how));

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Configuration")));
  controls->addWidget(selector_);
  controls->addStretch(1);
  controls->addWidget(new QLabel(tr("Largest allocations from")));
  controls->addWidget(threshold_);
  controls->addWidget(threshold_label_);

  auto* tables = new QSplitter(Qt::Horizontal);
  tables->addWidget(peaks_table);
  tables->addWidget(largest_table);
  tables->setStretchFactor(0, 3);
  tables->setStretchFactor(1, 2);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(chart_);
  splitter->addWidget(tables);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(note_);
  layout->addWidget(splitter, 1);

  connect(selector_, &OutcomeSelector::selection_changed, this, [this] { refresh(); });
  connect(threshold_, &QSlider::valueChanged, this, &MemoryView::on_threshold_changed);
  on_threshold_changed(0);
  clear();
}

void MemoryView::clear() {
  selector_->clear_outcomes();
  refresh();
}

void MemoryView::refresh() {
  // Drawing a timeline takes tens of milliseconds: a hidden tab draws when it is shown, so a
  // run's end does not stall the window the user is looking at.
  stale_ = !isVisible();
  if (!stale_) show_outcome(selector_->selected());
}

void MemoryView::prepare_export() {
  if (!stale_) return;
  stale_ = false;
  show_outcome(selector_->selected());
}

void MemoryView::showEvent(QShowEvent* event) {
  ResultView::showEvent(event);
  if (stale_) refresh();
}

void MemoryView::add_outcome(const RunOutcome& outcome) { selector_->add_outcome(outcome); }

void MemoryView::show_outcome(const RunOutcome* outcome) {
  const auto timeline = outcome ? outcome->timeline : nullptr;
  if (!outcome) {
    note_->setText(tr("The memory timeline appears when a configuration run with the memory profiler ends."));
  } else if (!timeline) {
    note_->setText(tr("This configuration ran without the memory profiler."));
  } else {
    QString text = tr("%1 allocator events").arg(timeline->points.size());
    if (is_import(*outcome->result)) {
      text = tr("%1: %2; the largest allocations by the frame that made them (your own code first)")
                 .arg(QString::fromStdString(describe(*outcome->result)), text);
    }
    if (timeline->baseline_bytes > 0) {
      text += tr("; %1 already allocated when recording began (other)")
                  .arg(format_bytes(timeline->baseline_bytes));
    }
    if (timeline->truncated) {
      text += tr("; <b>the record stopped at %1 events</b> (%2 more not kept)")
                  .arg(timeline->event_limit)
                  .arg(timeline->dropped_events);
    }
    note_->setText(text);
  }
  if (outcome && outcome->memory_chart) {
    chart_->setTimeline(timeline, *outcome->memory_chart);
  } else {
    chart_->setTimeline(timeline);
  }
  peaks_->set_timeline(timeline ? *timeline : profiling::MemoryTimeline());
  largest_->set_timeline(timeline ? *timeline : profiling::MemoryTimeline());

}

void MemoryView::on_threshold_changed(int position) {
  const int64_t bytes = threshold_bytes(position);
  largest_->set_min_bytes(bytes);
  threshold_label_->setText(bytes == 0 ? tr("any size") : format_bytes(bytes));
}

std::vector<NamedTable> MemoryView::tables() const {
  return {{"memory_peaks", peaks_}, {"largest_allocations", largest_}};
}

std::vector<NamedChart> MemoryView::charts() const { return {{"memory_timeline", chart_}}; }

}  // namespace stepscope::views
