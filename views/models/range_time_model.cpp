#include "models/range_time_model.h"

#include <string>
#include <utility>

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> range_time_columns() {
  const QString ns = QStringLiteral("Shown in adaptive units; exact and exported in ns");
  std::vector<TableModel::Column> columns;
  columns.push_back({"Range", false, "The range's name, indented under the range around it"});
  columns.push_back({"Phase", false, "The step phase it ran in"});
  columns.push_back({"Calls/Step", true, "Times it ran per measured step (a block's range: once per layer)"});
  columns.push_back({"Time/Step (ns)", true, "CPU time per measured step; " + ns, "Time/Step"});
  columns.push_back({"Step (%)", true, "Share of the step's CPU time"});
  columns.push_back({"Phase (%)", true, "Share of its phase's CPU time"});
  columns.push_back({"Per Call (ns)", true, "Mean CPU time of one call (a block's range: one layer); " + ns, "Per Call"});
  columns.push_back({"Parent", false, "The range around it"});
  return columns;
}

std::string key_of(const RangeTimeRow& row) { return (row.parent + QChar(0x1f) + row.range).toStdString(); }

}  // namespace

RangeTimeModel::RangeTimeModel(QObject* parent) : KeyedTableModel(range_time_columns(), parent) {}

void RangeTimeModel::set_rows(std::vector<RangeTimeRow> rows) {
  std::vector<Item> items;
  bool same = rows.size() == rows_.size();
  for (size_t i = 0; i < rows.size(); ++i) {
    items.push_back({static_cast<int>(i), key_of(rows[i])});
    same = same && key_of(rows[i]) == key_of(rows_[i]);
  }
  const auto adopt = [&] { rows_ = std::move(rows); };
  if (same) {
    update_items(std::move(items), adopt);
  } else {
    reset_items(std::move(items), adopt);
  }
}

TableModel::Cell RangeTimeModel::cell(int row, int column) const {
  const RangeTimeRow& r = rows_[static_cast<size_t>(item(row))];
  switch (column) {
    case Range: return {QString(2 * r.depth, QLatin1Char(' ')) + r.range, r.range};
    case Phase: return r.phase.isEmpty() ? missing_cell() : text_cell(r.phase);
    case CallsPerStep: return {QString::number(r.calls_per_step, 'g', 4), r.calls_per_step};
    case TimePerStep: return duration_cell(r.ns_per_step);
    case StepShare: return r.step_percent < 0 ? missing_cell() : percent_cell(r.step_percent);
    case PhaseShare: return r.phase_percent < 0 ? missing_cell() : percent_cell(r.phase_percent);
    case PerCall: return duration_cell(r.ns_per_call);
    case Parent: return text_cell(r.parent);
    default: return {};
  }
}

}  // namespace stepscope::views
