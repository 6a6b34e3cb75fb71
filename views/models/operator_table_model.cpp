#include "models/operator_table_model.h"

#include "models/format.h"
#include "profiling/operator_stats_schema.h"

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> operator_columns() {
  const QString ns = QStringLiteral("Exported in ns");
  return {
      {"range", false, "The ranges open around the calls, outermost first", "Range"},
      {"name", false, "The ATen operator", "Operator"},
      {"input_shapes", false, "As key_averages(group_by_input_shape=True) prints them", "Input shapes"},
      {"calls", true, "Calls over the measured steps", "Calls"},
      {"total_cpu_ns", true, "Entry to exit, nested operators included; " + ns, "Total CPU"},
      {"self_cpu_ns", true, "Less the operators nested in it; " + ns, "Self CPU"},
      {"self_gpu_ns", true, "The kernels it launched itself; " + ns, "Self GPU"},
      {"total_gpu_ns", true, "With those its nested operators launched; " + ns, "Total GPU"},
      {"kernels", true, "Distinct kernels it launched itself (the operator_kernels table lists them)", "Kernels"},
  };
}

}  // namespace

QString range_path_text(const profiling::OperatorStats& stats) {
  return QString::fromStdString(profiling::range_path_text(stats.range_path));
}

OperatorTableModel::OperatorTableModel(QObject* parent) : TableModel(operator_columns(), parent) {}

void OperatorTableModel::set_profile(std::shared_ptr<const profiling::OperatorProfile> profile) {
  beginResetModel();
  profile_ = std::move(profile);
  endResetModel();
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !profile_ ? 0 : static_cast<int>(profile_->operators.size());
}

TableModel::Cell OperatorTableModel::cell(int row, int column) const {
  const profiling::OperatorStats& op = profile_->operators[static_cast<size_t>(row)];
  const bool gpu = profile_->gpu_activity_recorded;
  switch (column) {
    case Range: return text_cell(range_path_text(op));
    case Name: return text_cell(QString::fromStdString(op.name));
    case InputShapes: return text_cell(QString::fromStdString(op.input_shapes));
    case Calls: return integer_cell(op.calls);
    case TotalCpu: return duration_cell(op.total_cpu_ns);
    case SelfCpu: return duration_cell(op.self_cpu_ns);
    case SelfGpu: return gpu ? duration_cell(op.self_gpu_ns) : missing_cell();
    case TotalGpu: return gpu ? duration_cell(op.total_gpu_ns) : missing_cell();
    case Kernels: return gpu ? integer_cell(static_cast<int64_t>(op.kernels.size())) : missing_cell();
    default: return missing_cell();
  }
}

}  // namespace stepscope::views
