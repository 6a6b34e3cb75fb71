#include "models/schema_table_model.h"

#include "charts/chart_colors.h"

#include <utility>

#include "models/roles.h"
#include "schema/value_format.h"

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> table_columns(const std::vector<schema::Column>& columns) {
  std::vector<TableModel::Column> out;
  for (const auto& c : columns) {
    QString tip = QString::fromStdString(c.description);
    const std::string unit = schema::unit_of(c.kind);
    if (!unit.empty() && c.kind != schema::ColumnKind::milliseconds) {
      tip += (tip.isEmpty() ? QString() : QStringLiteral("; ")) + QStringLiteral("exported in %1")
                 .arg(c.kind == schema::ColumnKind::fraction ? QStringLiteral("fractions")
                                                             : QString::fromStdString(unit));
    }
    out.push_back({QString::fromStdString(c.key), schema::is_numeric(c.kind), tip,
                   QString::fromStdString(schema::header_text(c))});
  }
  return out;
}

}  // namespace

QVariant to_variant(const schema::Value& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return QVariant::fromValue<qlonglong>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* s = std::get_if<std::string>(&value)) return QString::fromStdString(*s);
  return {};
}

SchemaTableModel::SchemaTableModel(std::vector<schema::Column> columns, QObject* parent)
    : TableModel(table_columns(columns), parent) {
  table_.columns = std::move(columns);
}

int SchemaTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.rows.size());
}

QVariant SchemaTableModel::data(const QModelIndex& index, int role) const {
  if (role == Qt::ForegroundRole) return status_color(index);
  if (role != CsvTextRole) return TableModel::data(index, role);
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const auto column = static_cast<size_t>(index.column());
  return QString::fromStdString(schema::csv_text(table_.rows[static_cast<size_t>(index.row())][column],
                                                 table_.columns[column].csv));
}

// A status other than ok (OOM, failed, cancelled) reads in the colour of the charts' failure marks.
QVariant SchemaTableModel::status_color(const QModelIndex& index) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const auto column = static_cast<size_t>(index.column());
  if (table_.columns[column].key != "status") return {};
  const std::string& status = schema::text_of(table_.rows[static_cast<size_t>(index.row())][column]);
  return status.empty() || status == "ok" ? QVariant() : QVariant(failure_color());
}

void SchemaTableModel::set_rows(std::vector<std::vector<schema::Value>> rows) {
  beginResetModel();
  table_.rows = std::move(rows);
  endResetModel();
}

void SchemaTableModel::set_table(const schema::Table& table) {
  std::vector<int> source;
  for (const auto& c : table_.columns) source.push_back(table.column_index(c.key));
  std::vector<std::vector<schema::Value>> rows;
  rows.reserve(table.rows.size());
  for (const auto& row : table.rows) {
    std::vector<schema::Value> aligned;
    for (int c : source) aligned.push_back(c >= 0 ? row[static_cast<size_t>(c)] : schema::Value{});
    rows.push_back(std::move(aligned));
  }
  table_.schema = table.schema;
  set_rows(std::move(rows));
}

void SchemaTableModel::append_row(std::vector<schema::Value> row) {
  beginInsertRows({}, rowCount(), rowCount());
  table_.rows.push_back(std::move(row));
  endInsertRows();
}

void SchemaTableModel::append_rows(std::vector<std::vector<schema::Value>> rows) {
  if (rows.empty()) return;
  beginInsertRows({}, rowCount(), rowCount() + static_cast<int>(rows.size()) - 1);
  for (auto& row : rows) table_.rows.push_back(std::move(row));
  endInsertRows();
}

void SchemaTableModel::clear() { set_rows({}); }

bool SchemaTableModel::shown_by_default(int column) const {
  const auto role = table_.columns[static_cast<size_t>(column)].role;
  return role == schema::ColumnRole::identity || role == schema::ColumnRole::measure;
}

TableModel::Cell SchemaTableModel::cell(int row, int column) const {
  const auto r = static_cast<size_t>(row), c = static_cast<size_t>(column);
  return {QString::fromStdString(schema::display_cell(table_, r, c)), to_variant(table_.rows[r][c])};
}

}  // namespace stepscope::views
