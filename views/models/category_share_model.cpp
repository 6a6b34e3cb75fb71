#include "models/category_share_model.h"

namespace stepscope::views {

namespace {

// The CLI's category CSV names the share "Time (%)".
std::vector<TableModel::Column> category_columns() {
  return {
      {"Category", false},
      {"Total Time (ns)", true, "Shown in adaptive units; exact and exported in ns", "Total Time"},
      {"Instances", true},
      {"Time (%)", true, "Share of the range's GPU time"},
  };
}

}  // namespace

CategoryShareModel::CategoryShareModel(QObject* parent) : RangeSummaryModel(category_columns(), parent) {}

TableModel::Cell CategoryShareModel::cell(int row, int column) const {
  const profiling::CategoryShare& share = summary()->categories[static_cast<size_t>(item(row))];
  switch (column) {
    case Category: return text_cell(QString::fromStdString(profiling::to_string(share.category)));
    case TotalTime: return duration_cell(share.total_ns);
    case Instances: return integer_cell(share.instances);
    case Share: return percent_cell(share.percent);
    default: return {};
  }
}

std::vector<KeyedTableModel::Item> CategoryShareModel::items_of(const profiling::RangeKernelSummary& summary) const {
  std::vector<Item> items;
  for (size_t i = 0; i < summary.categories.size(); ++i) {
    items.push_back({static_cast<int>(i), profiling::to_string(summary.categories[i].category)});
  }
  return items;
}

}  // namespace stepscope::views
