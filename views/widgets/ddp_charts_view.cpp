#include "widgets/ddp_charts_view.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "charts/ddp_chart_data.h"
#include "charts/ddp_step_chart_view.h"
#include "charts/rank_timeline_data.h"
#include "charts/rank_timeline_view.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/bucket_overhead_reading.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "widgets/result_table.h"

namespace stepscope::views {

DdpChartsView::DdpChartsView(QWidget* parent) : ResultView(parent) {
  step_chart_ = new DdpStepChartView;
  timeline_ = new RankTimelineView;
  add_png_export_menu(step_chart_, QStringLiteral("ddp_step_breakdown"));
  add_png_export_menu(timeline_, QStringLiteral("ddp_overlap"));
  // Beside the form, the two charts share what is left of the width: narrower than their
  // legends ask (a cut legend entry shows in full on hover) rather than widen the window.
  step_chart_->setMinimumWidth(260);
  timeline_->setMinimumWidth(300);
  row_selector_ = new QComboBox;
  row_selector_->setObjectName("overlapRowSelector");
  row_selector_->setToolTip(tr("The DDP row whose step the overlap picture shows"));
  reading_ = new QLabel;
  reading_->setObjectName("bucketReading");
  reading_->setWordWrap(true);
  reading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  reading_->setFont(QFont(QStringLiteral("monospace")));
  reading_->setAlignment(Qt::AlignLeft | Qt::AlignTop);

  auto* overlap = new QWidget;
  auto* overlap_layout = new QVBoxLayout(overlap);
  overlap_layout->setContentsMargins(0, 0, 0, 0);
  auto* selector_row = new QHBoxLayout;
  selector_row->addWidget(new QLabel(tr("Overlap of row")));
  selector_row->addWidget(row_selector_);
  auto* open_window = new QToolButton;
  open_window->setObjectName("overlapWindowButton");
  open_window->setText(tr("Open in a window"));
  open_window->setToolTip(tr("The overlap picture in a window of its own, as tall as its lanes need: two a rank"));
  connect(open_window, &QToolButton::clicked, this, [this] { open_overlap_window(); });
  selector_row->addWidget(open_window);
  selector_row->addStretch(1);
  overlap_layout->addLayout(selector_row);
  overlap_layout->addWidget(timeline_, 1);
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(step_chart_);
  charts->addWidget(overlap);
  charts->setSizes({1, 1});  // half each, whatever their minimums

  auto* reading_box = new QGroupBox(tr("Bucket overhead model: n_b*o + (s/n_b)/w"));
  auto* reading_layout = new QVBoxLayout(reading_box);
  auto* scroll = new QScrollArea;
  scroll->setWidget(reading_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  reading_layout->addWidget(scroll);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(charts);
  splitter->addWidget(reading_box);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);

  connect(row_selector_, &QComboBox::currentIndexChanged, this, &DdpChartsView::redraw_timeline);
  clear();
}

void DdpChartsView::clear() {
  ddp_ = ddp_schema().table({});
  timeline_table_ = ddp_timeline_schema().table({});
  collectives_ = collective_schema().table({});
  step_chart_->setData({});
  refill_row_selector();
  redraw_timeline();
  redraw_reading();
}

void DdpChartsView::show_tables(const std::vector<schema::Table>& tables) {
  bool ddp = false, timeline = false, collectives = false;
  for (const auto& table : tables) {
    if (table.schema == ddp_schema().id) {
      ddp_ = table;
      ddp = true;
    } else if (table.schema == ddp_timeline_schema().id) {
      timeline_table_ = table;
      timeline = true;
    } else if (table.schema == collective_schema().id) {
      collectives_ = table;
      collectives = true;
    }
  }
  if (ddp) step_chart_->setData(build_ddp_step_data(ddp_));
  if (timeline) {
    refill_row_selector();
    redraw_timeline();
  }
  if (ddp || collectives) redraw_reading();
}

// Keeps the row someone chose while the table still has it (rows arrive during a run).
void DdpChartsView::refill_row_selector() {
  const QSignalBlocker block(row_selector_);
  const QString chosen = row_selector_->currentText();
  row_selector_->clear();
  for (const auto& key : timeline_row_keys(timeline_table_)) row_selector_->addItem(key.label);
  row_selector_->setCurrentIndex(std::max(0, row_selector_->findText(chosen)));
  row_selector_->setEnabled(row_selector_->count() > 1);
}

void DdpChartsView::redraw_timeline() {
  const auto keys = timeline_row_keys(timeline_table_);
  const int chosen = row_selector_->currentIndex();
  RankTimelineData data;
  if (chosen < 0 || static_cast<size_t>(chosen) >= keys.size()) {
    data.message = tr("No overlap picture: the run recorded no timeline (ddp.timeline) spans");
  } else {
    data = build_rank_timeline(timeline_table_, keys[static_cast<size_t>(chosen)]);
  }
  if (window_timeline_) {
    window_timeline_->window()->setWindowTitle(tr("Overlap of %1 - Stepscope").arg(row_selector_->currentText()));
    window_timeline_->setData(data);
  }
  timeline_->setData(std::move(data));
}

RankTimelineView* DdpChartsView::open_overlap_window() {
  if (!window_timeline_) {
    auto* window = new QWidget(this, Qt::Window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window_timeline_ = new RankTimelineView;
    add_png_export_menu(window_timeline_, QStringLiteral("ddp_overlap"));
    auto* layout = new QVBoxLayout(window);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(window_timeline_);
    // Room for every lane's label (about 22 px a lane) beside the title, legend and time axis.
    const int lanes = static_cast<int>(timeline_->data().lanes.size());
    QSize size(1100, 180 + 22 * std::max(4, lanes));
    if (const QScreen* screen = this->screen()) size = size.boundedTo(screen->availableGeometry().size() - QSize(0, 48));
    window->resize(size);
    redraw_timeline();
  }
  window_timeline_->window()->show();
  window_timeline_->window()->raise();
  window_timeline_->window()->activateWindow();
  return window_timeline_;
}

void DdpChartsView::redraw_reading() {
  const auto reading = bucket_overhead_reading(ddp_, collectives_);
  reading_->setText(reading ? QString::fromStdString(reading_text(*reading))
                            : tr("The model needs all-reduce times to fit w and o: measure all-reduce at several "
                                 "sizes in the Collectives tab; its rows feed this model."));
}

QString DdpChartsView::reading() const { return reading_->text(); }

std::vector<NamedChart> DdpChartsView::charts() const {
  return {{QStringLiteral("ddp_step_breakdown"), step_chart_}, {QStringLiteral("ddp_overlap"), timeline_}};
}

}  // namespace stepscope::views
