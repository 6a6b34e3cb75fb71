#include "models/table_model.h"

#include <utility>

#include "models/format.h"
#include "models/roles.h"

namespace stepscope::views {

TableModel::TableModel(std::vector<Column> columns, QObject* parent)
    : QAbstractTableModel(parent), columns_(std::move(columns)) {}

int TableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(columns_.size());
}

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  const Column& column = columns_[static_cast<size_t>(section)];
  switch (role) {
    case Qt::DisplayRole: return column.label.isEmpty() ? column.header : column.label;
    case ExactValueRole: return column.header;  // the name exports write
    case Qt::ToolTipRole: return column.tooltip.isEmpty() ? QVariant() : QVariant(column.tooltip);
    default: return {};
  }
}

QVariant TableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  switch (role) {
    case Qt::DisplayRole: return cell(index.row(), index.column()).text;
    case ExactValueRole: return cell(index.row(), index.column()).exact;
    case Qt::ToolTipRole: {
      const QString tip = tooltip(index.row(), index.column());
      return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    case Qt::TextAlignmentRole: {
      const bool numeric = columns_[static_cast<size_t>(index.column())].numeric;
      // As an int: what item delegates of every Qt 6 release read.
      return static_cast<int>(Qt::AlignVCenter | (numeric ? Qt::AlignRight : Qt::AlignLeft));
    }
    default: return {};
  }
}

QString TableModel::tooltip(int, int) const { return {}; }

TableModel::Cell TableModel::text_cell(const QString& text) { return {text, text}; }

TableModel::Cell TableModel::integer_cell(int64_t value) {
  return {format_count(value), QVariant::fromValue<qlonglong>(value)};
}

TableModel::Cell TableModel::duration_cell(int64_t ns) {
  return {format_duration_ns(static_cast<double>(ns)), QVariant::fromValue<qlonglong>(ns)};
}

TableModel::Cell TableModel::duration_cell(double ns) { return {format_duration_ns(ns), ns}; }

TableModel::Cell TableModel::percent_cell(double percent) { return {format_percent(percent), percent}; }

TableModel::Cell TableModel::bytes_cell(int64_t bytes) {
  if (bytes < 0) return missing_cell();
  return {format_bytes(bytes), QVariant::fromValue<qlonglong>(bytes)};
}

TableModel::Cell TableModel::missing_cell() { return {missing_text(), QVariant()}; }

}  // namespace stepscope::views
