#include "widgets/attention_charts_view.h"

#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLegend>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

#include "charts/attention_chart_data.h"
#include "charts/sweep_chart_view.h"
#include "experiments/attention/attention_reading.h"
#include "experiments/attention/attention_schema.h"
#include "widgets/result_table.h"

namespace stepscope::views {

namespace {

// Two charts side by side beside a form: smaller than a sweep chart's own minimum, still
// readable.
constexpr int kChartMinWidth = 280;
constexpr int kChartMinHeight = 200;

}  // namespace

AttentionChartsView::AttentionChartsView(QWidget* parent) : ResultView(parent) {
  table_ = attention_schema().table({});
  time_chart_ = new SweepChartView(tr("Forward + backward time"));
  time_chart_->setLogScale(true);
  memory_chart_ = new SweepChartView(tr("Memory in use before the backward"));
  memory_chart_->setLogScale(true);
  for (SweepChartView* chart : {time_chart_, memory_chart_}) {
    chart->setMinimumSize(kChartMinWidth, kChartMinHeight);
    // A line per implementation: the legend below the plot leaves the plot the width.
    chart->chart()->legend()->setAlignment(Qt::AlignBottom);
  }
  add_png_export_menu(time_chart_, QStringLiteral("attention_time"));
  add_png_export_menu(memory_chart_, QStringLiteral("attention_memory"));
  head_dim_filter_ = new QComboBox;
  head_dim_filter_->setObjectName("headDimFilter");
  precision_filter_ = new QComboBox;
  precision_filter_->setObjectName("precisionFilter");
  note_ = new QLabel;
  note_->setObjectName("chartsNote");
  note_->setWordWrap(true);  // empty, it still takes the row's spare width: the filters stay narrow

  auto* filters = new QHBoxLayout;
  filters->addWidget(new QLabel(tr("Charts: head dim")));
  filters->addWidget(head_dim_filter_);
  filters->addWidget(new QLabel(tr("precision")));
  filters->addWidget(precision_filter_);
  filters->addWidget(note_, 1);
  auto* chart_row = new QHBoxLayout;
  chart_row->addWidget(time_chart_, 1);
  chart_row->addWidget(memory_chart_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(filters);
  layout->addLayout(chart_row, 1);

  for (QComboBox* box : {head_dim_filter_, precision_filter_}) {
    connect(box, &QComboBox::currentIndexChanged, this, &AttentionChartsView::redraw_charts);
    connect(box, &QComboBox::activated, this, [this] { user_filtered_ = true; });
  }
  refill_filters();
  redraw_charts();
}

void AttentionChartsView::clear() {
  user_filtered_ = false;
  table_ = attention_schema().table({});
  refill_filters();
  redraw_charts();
}

void AttentionChartsView::show_tables(const std::vector<schema::Table>& tables) {
  for (const auto& table : tables) {
    if (table.schema != attention_schema().id) continue;
    table_ = table;
    refill_filters();
    redraw_charts();
  }
}

// Keeps a choice someone made where it is still offered ("all" otherwise).
void AttentionChartsView::refill_filters() {
  const QSignalBlocker block_d(head_dim_filter_), block_p(precision_filter_);
  const QVariant d = head_dim_filter_->currentData(), p = precision_filter_->currentData();
  head_dim_filter_->clear();
  head_dim_filter_->addItem(tr("all"), qlonglong{0});
  for (int64_t value : attention_head_dims(table_)) head_dim_filter_->addItem(QString::number(value), qlonglong{value});
  precision_filter_->clear();
  precision_filter_->addItem(tr("all"), QString());
  for (const QString& value : attention_precisions(table_)) precision_filter_->addItem(value, value);
  // Until someone picks, the charts show the largest head dim and the first precision when the
  // table has several: one line per implementation, not a dozen lines of cycling colours.
  if (!user_filtered_) {
    const auto rows = attention_rows(table_);
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

void AttentionChartsView::set_chart_filter(int64_t head_dim, const QString& precision) {
  user_filtered_ = true;
  head_dim_filter_->setCurrentIndex(std::max(0, head_dim_filter_->findData(qlonglong{head_dim})));
  precision_filter_->setCurrentIndex(std::max(0, precision_filter_->findData(precision)));
  redraw_charts();
}

void AttentionChartsView::redraw_charts() {
  const AttentionChartFilter filter{head_dim_filter_->currentData().toLongLong(), precision_filter_->currentData().toString()};
  time_chart_->setData(build_attention_chart_data(table_, AttentionMeasure::forward_backward_time, filter));
  memory_chart_->setData(build_attention_chart_data(table_, AttentionMeasure::memory_before_backward, filter));
  // Charts that show little say why: nothing run yet, a table they cannot read, or lines of one
  // point each.
  QString note;
  if (table_.rows.empty()) {
    note = tr("The charts fill in as a sweep runs (Run, at the left), or show one opened from the History.");
  } else if (attention_rows(table_).size() != table_.rows.size()) {
    note = tr("Some rows of this table are not attention configurations this build reads: the charts are left empty.");
  } else {
    std::set<double> lengths;
    for (const auto& line : time_chart_->data().lines) {
      for (const QPointF& p : line.points) lengths.insert(p.x());
    }
    for (const auto& f : time_chart_->data().failures) lengths.insert(f.x);
    if (lengths.size() == 1) {
      note = tr("One sequence length (%1): each implementation is a single point. Give two or more sequence "
                "lengths to see how time and memory grow with it.")
                 .arg(*lengths.begin());
    }
  }
  note_->setText(note);
}

std::vector<NamedChart> AttentionChartsView::charts() const {
  return {{QStringLiteral("attention_time"), time_chart_}, {QStringLiteral("attention_memory"), memory_chart_}};
}

QString AttentionChartsView::note() const { return note_->text(); }

}  // namespace stepscope::views
