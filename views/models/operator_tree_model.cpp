#include "models/operator_tree_model.h"

#include <QFont>
#include <QStringList>

#include "models/format.h"
#include "models/roles.h"

namespace stepscope::views {

namespace {

struct ColumnInfo {
  const char* label;   // what the header shows
  const char* export_name;
  const char* tooltip;
};

// Two-line labels keep the numeric columns as narrow as their numbers, so that all of them
// fit beside the names in a laptop's window.
const ColumnInfo kColumns[OperatorTreeModel::ColumnCount] = {
    {"Range / operator / kernel", "name",
     "Ranges (forward, attention, ...), the ATen operators called inside them, and the GPU kernels each launched"},
    {"Input shapes", "input_shapes", "The operator's input shapes, as key_averages(group_by_input_shape=True) prints them"},
    {"Calls", "calls", "Operator calls over the measured steps (a range: those inside it; a kernel: its launches)"},
    {"Total\nCPU", "total_cpu_ns",
     "CPU time over the measured steps from entry to exit, nested operators included (a range: its operators' self "
     "time, each counted once)"},
    {"Self\nCPU", "self_cpu_ns",
     "CPU time over the measured steps less the operators nested in it (a range: summed over the operators inside)"},
    {"Self CPU\n% of step", "self_cpu_percent", "Self CPU time as a share of the measured steps' CPU time"},
    {"CPU per\nstep", "total_cpu_ns_per_step", "Total CPU time per measured step"},
    {"Self\nGPU", "self_gpu_ns",
     "GPU time over the measured steps of the kernels the operator launched itself (a range: of every kernel inside)"},
    {"Total\nGPU", "total_gpu_ns", "GPU time over the measured steps with the kernels its nested operators launched"},
    {"Self GPU\n% of GPU", "self_gpu_percent", "Self GPU time as a share of every kernel's time"},
    {"GPU per\nstep", "total_gpu_ns_per_step", "Total GPU time per measured step"},
};

QString utf8(const std::string& text) { return QString::fromStdString(text); }

QVariant exact_ns(int64_t ns) { return QVariant::fromValue<qlonglong>(ns); }

}  // namespace

OperatorTreeModel::OperatorTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

bool OperatorTreeModel::is_gpu_column(int column) {
  return column == SelfGpu || column == TotalGpu || column == SelfGpuPercent || column == GpuPerStep;
}

void OperatorTreeModel::set_profile(std::shared_ptr<const profiling::OperatorProfile> profile) {
  profile_ = std::move(profile);
  rebuild();
}

void OperatorTreeModel::set_group_by_shapes(bool group) {
  if (group == group_by_shapes_) return;
  group_by_shapes_ = group;
  rebuild();
}

void OperatorTreeModel::rebuild() {
  beginResetModel();
  tree_ = profile_ ? build_operator_tree(*profile_, group_by_shapes_) : OperatorTree{};
  endResetModel();
}

const OperatorTreeNode& OperatorTreeModel::node(const QModelIndex& index) const {
  return tree_.nodes[static_cast<size_t>(index.internalId())];
}

QModelIndex OperatorTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  const std::vector<int>& siblings = parent.isValid() ? node(parent).children : tree_.roots;
  if (row >= static_cast<int>(siblings.size())) return {};
  return createIndex(row, column, static_cast<quintptr>(siblings[static_cast<size_t>(row)]));
}

QModelIndex OperatorTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const int parent = node(child).parent;
  if (parent < 0) return {};
  return createIndex(tree_.nodes[static_cast<size_t>(parent)].row, 0, static_cast<quintptr>(parent));
}

int OperatorTreeModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(tree_.roots.size());
  if (parent.column() != 0) return 0;
  return static_cast<int>(node(parent).children.size());
}

int OperatorTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

OperatorTreeModel::Cell OperatorTreeModel::per_step(int64_t ns) const {
  if (profile_->measured_steps <= 0) return {missing_text(), {}};
  const double value = static_cast<double>(ns) / profile_->measured_steps;
  return {format_duration_ns(value), value};
}

OperatorTreeModel::Cell OperatorTreeModel::cell(const OperatorTreeNode& n, int column) const {
  const bool is_kernel = n.kind == OperatorNodeKind::kernel;
  if (is_gpu_column(column) && !has_gpu()) return {tr("no GPU"), {}};
  // A kernel has no CPU time, nor have the kernels launched outside every operator.
  const bool cpu_column = column == TotalCpu || column == SelfCpu || column == SelfCpuPercent || column == CpuPerStep;
  if (cpu_column && !n.has_cpu) return {};
  switch (column) {
    case Name: return {utf8(n.name), utf8(n.name)};
    case InputShapes: {
      if (n.kind != OperatorNodeKind::op) return {};
      if (n.shapes.size() > 1) {
        const QString text = tr("%1 shapes").arg(format_count(static_cast<int64_t>(n.shapes.size())));
        return {text, text};
      }
      return {utf8(n.input_shapes), utf8(n.input_shapes)};
    }
    case Calls: return {format_count(n.calls), exact_ns(n.calls)};
    case TotalCpu: return {format_duration_ns(static_cast<double>(n.total_cpu_ns)), exact_ns(n.total_cpu_ns)};
    case SelfCpu: return {format_duration_ns(static_cast<double>(n.self_cpu_ns)), exact_ns(n.self_cpu_ns)};
    case SelfCpuPercent: {
      if (profile_->measured_cpu_ns <= 0) return {missing_text(), {}};
      const double percent = 100.0 * static_cast<double>(n.self_cpu_ns) / static_cast<double>(profile_->measured_cpu_ns);
      return {format_percent(percent), percent};
    }
    case CpuPerStep: return per_step(n.total_cpu_ns);
    case SelfGpu: return {format_duration_ns(static_cast<double>(n.self_gpu_ns)), exact_ns(n.self_gpu_ns)};
    case TotalGpu: return {format_duration_ns(static_cast<double>(n.total_gpu_ns)), exact_ns(n.total_gpu_ns)};
    case SelfGpuPercent: {
      if (tree_.gpu_ns <= 0) return {missing_text(), {}};
      const double percent = 100.0 * static_cast<double>(n.self_gpu_ns) / static_cast<double>(tree_.gpu_ns);
      return {format_percent(percent), percent};
    }
    case GpuPerStep: return per_step(is_kernel ? n.self_gpu_ns : n.total_gpu_ns);
    default: return {};
  }
}

QString OperatorTreeModel::tooltip(const OperatorTreeNode& n, int column) const {
  if (is_gpu_column(column) && !has_gpu()) {
    const std::string& why = profile_->source_message;
    return why.empty() ? tr("No GPU activity was recorded") : tr("No GPU activity was recorded: %1").arg(utf8(why));
  }
  if (column == Name && n.kind == OperatorNodeKind::kernel) {
    return tr("%1\ncategory: %2").arg(utf8(n.full_name), utf8(profiling::to_string(n.category)));
  }
  if ((column == Name || column == InputShapes) && n.kind == OperatorNodeKind::op && n.shapes.size() > 1) {
    QStringList shapes;
    for (const auto& s : n.shapes) shapes << utf8(s);
    return tr("%1 over %2 input shapes:\n%3").arg(utf8(n.name)).arg(n.shapes.size()).arg(shapes.join('\n'));
  }
  if (column == Name && n.kind == OperatorNodeKind::op && !n.has_cpu) {
    return tr("Kernels launched in this range outside every operator (fused kernels, graph replays)");
  }
  if (column == Name || column == InputShapes) {
    const QString text = cell(n, column).text;
    return text.isEmpty() ? QString() : text;  // names and shapes run long: the whole text
  }
  return {};
}

QVariant OperatorTreeModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const OperatorTreeNode& n = node(index);
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole: return cell(n, column).text;
    case ExactValueRole: return cell(n, column).exact;
    // Exports write what was measured: nothing where the profile had no GPU to measure.
    case CsvTextRole:
      if (is_gpu_column(column) && !has_gpu()) return QString();
      return {};
    case Qt::ToolTipRole: {
      const QString tip = tooltip(n, column);
      return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    case Qt::TextAlignmentRole:
      return static_cast<int>(Qt::AlignVCenter | (column == Name || column == InputShapes ? Qt::AlignLeft : Qt::AlignRight));
    case Qt::FontRole: {
      if (n.kind != OperatorNodeKind::range) return {};
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    case SearchTextRole: {
      if (column != Name) return {};
      QStringList parts{utf8(n.name)};
      if (n.full_name != n.name) parts << utf8(n.full_name);
      for (const auto& s : n.shapes) parts << utf8(s);
      return parts.join('\n');
    }
    default: return {};
  }
}

QVariant OperatorTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  const ColumnInfo& column = kColumns[section];
  switch (role) {
    case Qt::DisplayRole: return tr(column.label);
    case ExactValueRole: return QString::fromLatin1(column.export_name);
    case Qt::ToolTipRole: return tr(column.tooltip);
    default: return {};
  }
}

}  // namespace stepscope::views
