#include "widgets/attention_view.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>

#include "charts/attention_chart_data.h"
#include "charts/sweep_chart_view.h"
#include "experiments/attention/attention_reading.h"
#include "experiments/attention/attention_schema.h"
#include "models/schema_table_model.h"
#include "widgets/result_table.h"

namespace stepscope::views {

AttentionView::AttentionView(QWidget* parent) : ResultView(parent) {
  form_ = new AttentionSweepForm;
  model_ = new SchemaTableModel(attention_schema().columns(), this);
  time_chart_ = new SweepChartView(tr("Forward + backward time"));
  time_chart_->setLogScale(true);
  memory_chart_ = new SweepChartView(tr("Memory in use before the backward"));
  memory_chart_->setLogScale(true);
  add_png_export_menu(time_chart_, QStringLiteral("attention_time"));
  add_png_export_menu(memory_chart_, QStringLiteral("attention_memory"));
  head_dim_filter_ = new QComboBox;
  head_dim_filter_->setObjectName("headDimFilter");
  precision_filter_ = new QComboBox;
  precision_filter_->setObjectName("precisionFilter");
  reading_ = new QLabel;
  reading_->setObjectName("reading");
  reading_->setWordWrap(true);
  reading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  reading_->setFont(QFont(QStringLiteral("monospace")));
  reading_->setAlignment(Qt::AlignLeft | Qt::AlignTop);

  auto* filters = new QHBoxLayout;
  filters->addWidget(new QLabel(tr("Charts: head dim")));
  filters->addWidget(head_dim_filter_);
  filters->addWidget(new QLabel(tr("precision")));
  filters->addWidget(precision_filter_);
  filters->addStretch(1);
  auto* charts = new QWidget;
  auto* chart_layout = new QVBoxLayout(charts);
  chart_layout->setContentsMargins(0, 0, 0, 0);
  chart_layout->addLayout(filters);
  auto* chart_row = new QHBoxLayout;
  chart_row->addWidget(time_chart_, 1);
  chart_row->addWidget(memory_chart_, 1);
  chart_layout->addLayout(chart_row, 1);

  auto* reading_box = new QGroupBox(tr("Memory accounting"));
  auto* reading_layout = new QVBoxLayout(reading_box);
  reading_layout->addWidget(reading_);

  auto* lower = new QSplitter(Qt::Horizontal);
  lower->addWidget(new ResultTable(model_, QStringLiteral("attention")));
  lower->addWidget(reading_box);
  lower->setStretchFactor(0, 3);
  lower->setStretchFactor(1, 2);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(charts);
  splitter->addWidget(lower);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(form_);
  layout->addWidget(splitter, 1);

  for (QComboBox* box : {head_dim_filter_, precision_filter_}) {
    connect(box, &QComboBox::currentIndexChanged, this, &AttentionView::redraw_charts);
    connect(box, &QComboBox::activated, this, [this] { user_filtered_ = true; });
  }
  refill_filters();
  redraw_charts();
}

void AttentionView::clear() {
  user_filtered_ = false;
  model_->clear();
  reading_->clear();
  refill_filters();
  redraw_charts();
}

void AttentionView::show_tables(const std::vector<schema::Table>& tables) {
  for (const auto& table : tables) {
    if (table.schema != attention_schema().id) continue;
    model_->set_table(table);
    reading_->setText(QString::fromStdString(attention_memory_reading(table)));
    refill_filters();
    redraw_charts();
  }
}

// Keeps a choice someone made where it is still offered ("all" otherwise).
void AttentionView::refill_filters() {
  const schema::Table& table = model_->table();
  const QSignalBlocker block_d(head_dim_filter_), block_p(precision_filter_);
  const QVariant d = head_dim_filter_->currentData(), p = precision_filter_->currentData();
  head_dim_filter_->clear();
  head_dim_filter_->addItem(tr("all"), qlonglong{0});
  for (int64_t value : attention_head_dims(table)) head_dim_filter_->addItem(QString::number(value), qlonglong{value});
  precision_filter_->clear();
  precision_filter_->addItem(tr("all"), QString());
  for (const QString& value : attention_precisions(table)) precision_filter_->addItem(value, value);
  // Until someone picks, the charts show the largest head dim and the first precision when the
  // table has several: one line per implementation, not a dozen lines of cycling colours.
  if (!user_filtered_) {
    const auto rows = attention_rows(table);
    const QString first = precision_filter_->count() > 2 ? precision_filter_->itemData(1).toString() : QString();
    int64_t largest = 0;
    for (const auto& r : rows) {
      if (first.isEmpty() || QString::fromStdString(to_string(r.config.precision)) == first) {
        largest = std::max(largest, r.config.head_dim);
      }
    }
    head_dim_filter_->setCurrentIndex(head_dim_filter_->count() > 2 ? head_dim_filter_->findData(qlonglong{largest}) : 0);
    precision_filter_->setCurrentIndex(first.isEmpty() ? 0 : 1);
  } else {
    head_dim_filter_->setCurrentIndex(std::max(0, head_dim_filter_->findData(d)));
    precision_filter_->setCurrentIndex(std::max(0, precision_filter_->findData(p)));
  }
}

void AttentionView::set_chart_filter(int64_t head_dim, const QString& precision) {
  user_filtered_ = true;
  head_dim_filter_->setCurrentIndex(std::max(0, head_dim_filter_->findData(qlonglong{head_dim})));
  precision_filter_->setCurrentIndex(std::max(0, precision_filter_->findData(precision)));
  redraw_charts();
}

void AttentionView::redraw_charts() {
  const AttentionChartFilter filter{head_dim_filter_->currentData().toLongLong(), precision_filter_->currentData().toString()};
  const schema::Table& table = model_->table();
  time_chart_->setData(build_attention_chart_data(table, AttentionMeasure::forward_backward_time, filter));
  memory_chart_->setData(build_attention_chart_data(table, AttentionMeasure::memory_before_backward, filter));
}

std::vector<NamedTable> AttentionView::tables() const { return {{QStringLiteral("attention"), model_}}; }

std::vector<NamedChart> AttentionView::charts() const {
  return {{QStringLiteral("attention_time"), time_chart_}, {QStringLiteral("attention_memory"), memory_chart_}};
}

QString AttentionView::reading() const { return reading_->text(); }

}  // namespace stepscope::views
