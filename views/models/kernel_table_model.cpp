#include "models/kernel_table_model.h"

#include <cmath>

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> kernel_columns() {
  const QString ns = QStringLiteral("Shown in adaptive units; exact and exported in ns");
  return {
      {"Time (%)", true, "Share of the range's GPU time"},
      {"Total Time (ns)", true, ns, "Total Time"},
      {"Instances", true},
      {"Avg (ns)", true, ns, "Avg"},
      {"Med (ns)", true, ns, "Med"},
      {"Min (ns)", true, ns, "Min"},
      {"Max (ns)", true, ns, "Max"},
      {"StdDev (ns)", true, "Sample standard deviation; " + ns, "StdDev"},
      {"Instances/Step", true, "Instances per measured step"},
      {"Category", false},
      {"Name", false},
  };
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
  switch (column) {
    case TimePercent: return percent_cell(k.time_percent);
    case TotalTime: return duration_cell(k.total_ns);
    case Instances: return integer_cell(k.instances);
    case Avg: return duration_cell(k.mean_ns);
    case Med: return duration_cell(k.median_ns);
    case Min: return duration_cell(k.min_ns);
    case Max: return duration_cell(k.max_ns);
    case StdDev: return duration_cell(k.stddev_ns);
    case InstancesPerStep:
      // At most three decimals, none trailing, as the CLI writes it: 24 -> "24", 1/3 -> "0.333".
      return {QString::number(std::round(k.instances_per_step * 1000.0) / 1000.0, 'g', 15), k.instances_per_step};
    case Category: return text_cell(QString::fromStdString(profiling::to_string(k.category)));
    // Shown short or full; sorted and exported by the full name, which identifies the kernel.
    case Name: return {QString::fromStdString(shown_name(k)), QString::fromStdString(k.name)};
    default: return {};
  }
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
