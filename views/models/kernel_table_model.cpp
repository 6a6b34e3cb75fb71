#include "models/kernel_table_model.h"

#include "profiling/kernel_stats_schema.h"
#include "models/schema_table_model.h"
#include "schema/value_format.h"

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> kernel_columns() {
  std::vector<TableModel::Column> columns;
  for (const auto& c : profiling::kernel_stats_schema().columns()) {
    const bool numeric = schema::is_numeric(c.kind);
    columns.push_back({QString::fromStdString(c.key), numeric, QString::fromStdString(c.description),
                       c.label == c.key ? QString() : QString::fromStdString(c.label)});
  }
  return columns;
}

}  // namespace

KernelTableModel::KernelTableModel(QObject* parent) : RangeSummaryModel(kernel_columns(), parent) {}

void KernelTableModel::set_short_names(bool short_names) {
  if (short_names == short_names_) return;
  short_names_ = short_names;
  if (rowCount() > 0) emit dataChanged(index(0, Name), index(rowCount() - 1, Name));
}

const profiling::KernelStats& KernelTableModel::kernel(int row) const {
  return summary()->kernels[static_cast<size_t>(item(row))];
}

const std::string& KernelTableModel::shown_name(const profiling::KernelStats& kernel) const {
  return short_names_ && !kernel.short_name.empty() ? kernel.short_name : kernel.name;
}

TableModel::Cell KernelTableModel::cell(int row, int column) const {
  const profiling::KernelStats& k = kernel(row);
  // Shown short or full; sorted and exported by the full name, which identifies the kernel.
  if (column == Name) return {QString::fromStdString(shown_name(k)), QString::fromStdString(k.name)};
  const auto& field = profiling::kernel_stats_schema().fields[static_cast<size_t>(column)];
  const schema::Value value = field.get(k);
  return {QString::fromStdString(schema::display_value(value, field.column)), to_variant(value)};
}

QString KernelTableModel::tooltip(int row, int column) const {
  return column == Name ? QString::fromStdString(kernel(row).name) : QString();
}

std::vector<KeyedTableModel::Item> KernelTableModel::items_of(const profiling::RangeKernelSummary& summary) const {
  std::vector<Item> items;
  items.reserve(summary.kernels.size());
  for (size_t i = 0; i < summary.kernels.size(); ++i) items.push_back({static_cast<int>(i), summary.kernels[i].name});
  return items;
}

}  // namespace stepscope::views
