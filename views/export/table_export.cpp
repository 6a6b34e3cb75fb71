#include "export/table_export.h"

#include "export/file_output.h"
#include "io/csv_writer.h"
#include "models/format.h"
#include "models/roles.h"

#include <QAbstractItemModel>
#include <QStringList>

#include <map>
#include <set>

namespace stepscope::views {

namespace {

QString csv_field(const QString& text) { return QString::fromStdString(csv_escape(text.toStdString())); }

QString cell_text(const QAbstractItemModel& model, const QModelIndex& index) {
  // Schema tables say exactly what the CLI's CSV writes.
  const QVariant csv = model.data(index, CsvTextRole);
  if (csv.isValid()) return csv.toString();
  const QVariant exact = model.data(index, ExactValueRole);
  // Doubles as the CLI writes them: QVariant would write 300000.0 as "3e+05".
  if (exact.typeId() == QMetaType::Double) return QString::fromStdString(format_number(exact.toDouble()));
  if (exact.isValid()) return exact.toString();
  // A number the run did not measure shows "-" and exports empty, as the CLI writes it.
  const QString shown = model.data(index, Qt::DisplayRole).toString();
  return shown == missing_text() ? QString() : shown;
}

}  // namespace

QString table_to_csv(const QAbstractItemModel& model) {
  QString out;
  const int columns = model.columnCount();
  QStringList header;
  for (int c = 0; c < columns; ++c) {
    const QVariant name = model.headerData(c, Qt::Horizontal, ExactValueRole);
    header << csv_field((name.isValid() ? name : model.headerData(c, Qt::Horizontal)).toString());
  }
  out += header.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < columns; ++c) row << csv_field(cell_text(model, model.index(r, c)));
    out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return out;
}

bool write_table_csv(const QAbstractItemModel& model, const QString& path, QString* error) {
  // The command line's rules: a read-only file is refused, not replaced.
  return check_output_file(path, error) && write_output_file(path, table_to_csv(model).toUtf8(), error);
}

QString selection_to_tsv(const QAbstractItemModel& model, const QModelIndexList& selected) {
  if (selected.isEmpty()) return {};
  std::set<int> columns;
  std::map<int, std::map<int, QString>> rows;
  for (const QModelIndex& index : selected) {
    columns.insert(index.column());
    rows[index.row()][index.column()] = model.data(index, Qt::DisplayRole).toString();
  }
  QString out;
  QStringList header;
  for (int c : columns) header << model.headerData(c, Qt::Horizontal).toString();
  out += header.join(QLatin1Char('\t')) + QLatin1Char('\n');
  for (const auto& [row, cells] : rows) {
    QStringList line;
    for (int c : columns) {
      const auto it = cells.find(c);
      line << (it == cells.end() ? QString() : it->second);
    }
    out += line.join(QLatin1Char('\t')) + QLatin1Char('\n');
  }
  return out;
}

}  // namespace stepscope::views
