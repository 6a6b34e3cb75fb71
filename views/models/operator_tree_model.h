// The Operators tab's tree: range → operator (with its input shapes) → the kernels it
// launched, with key_averages' columns (calls, total and self CPU, self and total GPU), the
// CPU and GPU time per measured step and each row's share of the step.
#pragma once

#include <memory>

#include <QAbstractItemModel>

#include "models/operator_tree.h"

namespace stepscope::views {

// DisplayRole: the formatted text (models/format.h); ExactValueRole: the number behind it in
// ns (or the text in text columns), which sorts; no value where a figure does not apply (a
// kernel's CPU time) or was not measured. Without GPU activity in the profile the GPU columns
// say so ("no GPU") instead of showing zeros, and export empty.
class OperatorTreeModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column {
    Name,
    InputShapes,
    Calls,
    TotalCpu,
    SelfCpu,
    SelfCpuPercent,
    CpuPerStep,
    SelfGpu,
    TotalGpu,
    SelfGpuPercent,
    GpuPerStep,
    ColumnCount,
  };
  // What the text filter matches, in the Name column: the name (a kernel's short and full
  // names) and every input-shape signature the row sums.
  static constexpr int SearchTextRole = Qt::UserRole + 16;

  explicit OperatorTreeModel(QObject* parent = nullptr);

  // nullptr: no profile, no rows.
  void set_profile(std::shared_ptr<const profiling::OperatorProfile> profile);
  const profiling::OperatorProfile* profile() const { return profile_.get(); }
  // One row per input-shape signature (the default), or one per operator name in each range.
  void set_group_by_shapes(bool group);
  bool group_by_shapes() const { return group_by_shapes_; }
  // Whether the profile recorded GPU activity: without it the GPU columns have nothing to say.
  bool has_gpu() const { return profile_ != nullptr && profile_->gpu_activity_recorded; }
  static bool is_gpu_column(int column);

  // The node a valid index shows.
  const OperatorTreeNode& node(const QModelIndex& index) const;
  const OperatorTree& tree() const { return tree_; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Cell {
    QString text;
    QVariant exact;
  };
  Cell cell(const OperatorTreeNode& node, int column) const;
  QString tooltip(const OperatorTreeNode& node, int column) const;
  Cell per_step(int64_t ns) const;
  void rebuild();

  std::shared_ptr<const profiling::OperatorProfile> profile_;
  bool group_by_shapes_ = true;
  OperatorTree tree_;
};

}  // namespace stepscope::views
