// Any result table, driven by its schema's columns: headers, display text, exact values for
// sorting, CSV text for export and alignment all come from the column declarations, so an
// experiment's table needs no model of its own (in the manner of hotspot's HashModel).
#pragma once

#include <vector>

#include "models/table_model.h"
#include "schema/table.h"

namespace stepscope::views {

// A cell's exact value for ExactValueRole: qlonglong, double or QString; invalid when missing.
QVariant to_variant(const schema::Value& value);

class SchemaTableModel : public TableModel {
  Q_OBJECT

 public:
  explicit SchemaTableModel(std::vector<schema::Column> columns, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  // Adds CsvTextRole: the cell as the CLI's CSV writes it.
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

  void set_rows(std::vector<std::vector<schema::Value>> rows);
  // A stored table's rows, matched to this model's columns by key: a record of another build
  // may order or name them differently (a column it lacks shows "-").
  void set_table(const schema::Table& table);
  void append_row(std::vector<schema::Value> row);
  void append_rows(std::vector<std::vector<schema::Value>> rows);
  void clear();
  const schema::Table& table() const { return table_; }
  // Identity and measure columns; details and notes are kept for export and tooltips.
  bool shown_by_default(int column) const;

 protected:
  Cell cell(int row, int column) const override;

 private:
  QVariant status_color(const QModelIndex& index) const;

  schema::Table table_;
};

}  // namespace stepscope::views
