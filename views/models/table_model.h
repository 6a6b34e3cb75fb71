// The base of the views' tables: headers and the roles every table answers alike, so each
// model only says what a cell shows and what exact value stands behind it.
#pragma once

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>

namespace stepscope::views {

// DisplayRole: the formatted text. ExactValueRole: the number behind it in its base unit, or
// the text itself in text columns, so one sort role serves every column (see roles.h); no
// value where the number is unknown, which sorts last and exports as the "-" shown.
// TextAlignmentRole: numbers right, text left. ToolTipRole: per cell where a model gives one.
class TableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  struct Column {
    QString header;        // the CLI's CSV column name where the CLI writes the same thing
    bool numeric = true;   // right-aligned
    QString tooltip = {};  // header tooltip: what the column holds, in which unit it exports
    QString label = {};    // what the header shows, when it differs from the CSV name
  };

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  struct Cell {
    QString text;    // DisplayRole
    QVariant exact;  // ExactValueRole
  };

  TableModel(std::vector<Column> columns, QObject* parent);

  // The cell at a valid row and column.
  virtual Cell cell(int row, int column) const = 0;
  // The tooltip of a cell; none unless a model says otherwise.
  virtual QString tooltip(int row, int column) const;

  // The cells of the usual kinds.
  static Cell text_cell(const QString& text);
  static Cell integer_cell(int64_t value);
  static Cell duration_cell(int64_t ns);
  static Cell duration_cell(double ns);
  static Cell percent_cell(double percent);
  // Bytes shown in MiB; missing when negative (the engine's "unknown").
  static Cell bytes_cell(int64_t bytes);
  static Cell missing_cell();

 private:
  std::vector<Column> columns_;
};

}  // namespace stepscope::views
