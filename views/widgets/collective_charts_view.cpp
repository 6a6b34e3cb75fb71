#include "widgets/collective_charts_view.h"

#include <QVBoxLayout>

#include "charts/collective_chart_data.h"
#include "charts/sweep_chart_view.h"
#include "experiments/collectives/collective_schema.h"
#include "widgets/result_table.h"

namespace stepscope::views {

CollectiveChartsView::CollectiveChartsView(QWidget* parent) : ResultView(parent) {
  chart_ = new SweepChartView(tr("Bus bandwidth against size"));
  chart_->setLogScale(true);
  add_png_export_menu(chart_, QStringLiteral("communication_busbw"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(chart_);
  clear();
}

void CollectiveChartsView::clear() { chart_->setData(build_collective_chart_data(collective_schema().table({}))); }

void CollectiveChartsView::show_tables(const std::vector<schema::Table>& tables) {
  for (const auto& table : tables) {
    if (table.schema == collective_schema().id) chart_->setData(build_collective_chart_data(table));
  }
}

std::vector<NamedChart> CollectiveChartsView::charts() const { return {{QStringLiteral("communication_busbw"), chart_}}; }

}  // namespace stepscope::views
