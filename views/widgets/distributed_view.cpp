#include "widgets/distributed_view.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "charts/ddp_chart_data.h"
#include "charts/ddp_step_chart_view.h"
#include "charts/rank_timeline_view.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/bucket_overhead_reading.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_memory_schema.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "models/schema_table_model.h"
#include "widgets/result_table.h"

namespace stepscope::views {

DistributedView::DistributedView(QWidget* parent) : ResultView(parent) {
  form_ = new DistributedForm;
  model_ = new SchemaTableModel(ddp_schema().columns(), this);
  timeline_model_ = new SchemaTableModel(ddp_timeline_schema().columns(), this);
  memory_model_ = new SchemaTableModel(ddp_memory_schema().columns(), this);
  step_chart_ = new DdpStepChartView;
  timeline_ = new RankTimelineView;
  add_png_export_menu(step_chart_, QStringLiteral("ddp_step_breakdown"));
  add_png_export_menu(timeline_, QStringLiteral("ddp_overlap"));
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
  selector_row->addStretch(1);
  overlap_layout->addLayout(selector_row);
  overlap_layout->addWidget(timeline_, 1);
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(step_chart_);
  charts->addWidget(overlap);

  auto* tables = new QTabWidget;
  tables->addTab(new ResultTable(model_, QStringLiteral("ddp")), tr("DDP rows"));
  tables->addTab(new ResultTable(timeline_model_, QStringLiteral("ddp_timeline")), tr("Timeline spans"));
  tables->addTab(new ResultTable(memory_model_, QStringLiteral("ddp_memory")), tr("Memory per rank"));
  auto* reading_box = new QGroupBox(tr("Bucket overhead model: n_b*o + (s/n_b)/w"));
  auto* reading_layout = new QVBoxLayout(reading_box);
  auto* scroll = new QScrollArea;
  scroll->setWidget(reading_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  reading_layout->addWidget(scroll);
  auto* lower = new QSplitter(Qt::Horizontal);
  lower->addWidget(tables);
  lower->addWidget(reading_box);
  lower->setStretchFactor(0, 3);
  lower->setStretchFactor(1, 2);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(charts);
  splitter->addWidget(lower);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(form_);
  layout->addWidget(splitter, 1);

  connect(form_, &DistributedForm::run_requested, this, &DistributedView::run_requested);
  connect(form_, &DistributedForm::cancel_requested, this, &DistributedView::cancel_requested);
  connect(row_selector_, &QComboBox::currentIndexChanged, this, &DistributedView::redraw_timeline);
  clear();
}

void DistributedView::set_devices(const std::vector<DeviceChoice>& devices) { form_->set_devices(devices); }

std::optional<DistributedRequest> DistributedView::request(QString* error, std::string* field) const {
  return form_->request(error, field);
}

void DistributedView::set_running(bool running) { form_->set_running(running); }

void DistributedView::clear() {
  model_->clear();
  timeline_model_->clear();
  memory_model_->clear();
  collectives_ = collective_schema().table({});
  step_chart_->setData({});
  refill_row_selector();
  redraw_timeline();
  redraw_reading();
}

void DistributedView::show_tables(const std::vector<schema::Table>& tables) {
  bool ddp = false, timeline = false, collectives = false;
  for (const auto& table : tables) {
    if (table.schema == ddp_schema().id) {
      model_->set_table(table);
      ddp = true;
    } else if (table.schema == ddp_timeline_schema().id) {
      timeline_model_->set_table(table);
      timeline = true;
    } else if (table.schema == ddp_memory_schema().id) {
      memory_model_->set_table(table);
    } else if (table.schema == collective_schema().id) {
      collectives_ = table;
      collectives = true;
    }
  }
  if (ddp) step_chart_->setData(build_ddp_step_data(model_->table()));
  if (timeline) {
    refill_row_selector();
    redraw_timeline();
  }
  if (ddp || collectives) redraw_reading();
}

// Keeps the row someone chose while the table still has it (rows arrive during a run).
void DistributedView::refill_row_selector() {
  const QSignalBlocker block(row_selector_);
  const QString chosen = row_selector_->currentText();
  row_selector_->clear();
  for (const auto& key : timeline_row_keys(timeline_model_->table())) row_selector_->addItem(key.label);
  row_selector_->setCurrentIndex(std::max(0, row_selector_->findText(chosen)));
  row_selector_->setEnabled(row_selector_->count() > 1);
}

void DistributedView::redraw_timeline() {
  const schema::Table& table = timeline_model_->table();
  const auto keys = timeline_row_keys(table);
  const int chosen = row_selector_->currentIndex();
  if (chosen < 0 || static_cast<size_t>(chosen) >= keys.size()) {
    RankTimelineData empty;
    empty.message = tr("No overlap picture: the run recorded no timeline (ddp.timeline) spans");
    timeline_->setData(empty);
    return;
  }
  timeline_->setData(build_rank_timeline(table, keys[static_cast<size_t>(chosen)]));
}

void DistributedView::redraw_reading() {
  const auto reading = bucket_overhead_reading(model_->table(), collectives_);
  reading_->setText(reading ? QString::fromStdString(reading_text(*reading))
                            : tr("The model needs all-reduce times to fit w and o: show a collective benchmark's "
                                 "table with all-reduce rows of several sizes (the Communication tab, or "
                                 "stepscope-cli allreduce --json) together with this run."));
}

QString DistributedView::reading() const { return reading_->text(); }

std::vector<NamedTable> DistributedView::tables() const {
  return {{QStringLiteral("ddp"), model_},
          {QStringLiteral("ddp_timeline"), timeline_model_},
          {QStringLiteral("ddp_memory"), memory_model_}};
}

std::vector<NamedChart> DistributedView::charts() const {
  return {{QStringLiteral("ddp_step_breakdown"), step_chart_}, {QStringLiteral("ddp_overlap"), timeline_}};
}

}  // namespace stepscope::views
