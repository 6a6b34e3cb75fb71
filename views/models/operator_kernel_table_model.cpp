#include "models/operator_kernel_table_model.h"

#include "models/operator_table_model.h"

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> kernel_columns() {
  return {
      {"range", false, "The ranges open around the operator's calls, outermost first", "Range"},
      {"operator", false, "The ATen operator that launched the kernel", "Operator"},
      {"input_shapes", false, "The operator's input shapes", "Input shapes"},
      {"kernel", false, "The kernel's full demangled name", "Kernel"},
      {"short_name", false, "Templates and arguments folded", "Short name"},
      {"category", false, "What the kernel does, from its name", "Category"},
      {"launches", true, "Launches over the measured steps", "Launches"},
      {"total_gpu_ns", true, "GPU time over the measured steps; exported in ns", "GPU time"},
  };
}

}  // namespace

OperatorKernelTableModel::OperatorKernelTableModel(QObject* parent) : TableModel(kernel_columns(), parent) {}

void OperatorKernelTableModel::set_profile(std::shared_ptr<const profiling::OperatorProfile> profile) {
  beginResetModel();
  profile_ = std::move(profile);
  rows_.clear();
  if (profile_) {
    for (size_t o = 0; o < profile_->operators.size(); ++o) {
      for (size_t k = 0; k < profile_->operators[o].kernels.size(); ++k) {
        rows_.emplace_back(static_cast<int>(o), static_cast<int>(k));
      }
    }
  }
  endResetModel();
}

int OperatorKernelTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

TableModel::Cell OperatorKernelTableModel::cell(int row, int column) const {
  const auto [o, k] = rows_[static_cast<size_t>(row)];
  const profiling::OperatorStats& op = profile_->operators[static_cast<size_t>(o)];
  const profiling::OperatorKernel& kernel = op.kernels[static_cast<size_t>(k)];
  switch (column) {
    case Range: return text_cell(range_path_text(op));
    case Operator: return text_cell(QString::fromStdString(op.name));
    case InputShapes: return text_cell(QString::fromStdString(op.input_shapes));
    case Kernel: return text_cell(QString::fromStdString(kernel.name));
    case ShortName: return text_cell(QString::fromStdString(kernel.short_name));
    case Category: return text_cell(QString::fromStdString(profiling::to_string(kernel.category)));
    case Launches: return integer_cell(kernel.launches);
    case TotalGpu: return duration_cell(kernel.total_ns);
    default: return missing_cell();
  }
}

}  // namespace stepscope::views
