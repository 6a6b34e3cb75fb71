// A table as every tab shows one: sortable by exact values, copy (Ctrl+C) of the selection
// as tab-separated text, and Export CSV from its context menu.
#pragma once

#include <QTableView>

class QChartView;
class QSortFilterProxyModel;

namespace stepscope::views {

class ResultTable : public QTableView {
  Q_OBJECT

 public:
  // Shows `model` through `proxy` when given (kept sortable), else through a plain proxy that
  // sorts by ExactValueRole. `export_name` is the default CSV file name.
  ResultTable(QAbstractItemModel* model, const QString& export_name, QSortFilterProxyModel* proxy = nullptr,
              QWidget* parent = nullptr);

  // What a CSV export writes: the rows as shown (sorted, filtered).
  const QAbstractItemModel* shown_model() const;
  void copy_selection() const;
  // What the table says while it has no rows, in place of an empty grid: why it is empty and
  // what would fill it ("Run ... with ... to see ...").
  void set_empty_text(const QString& text);
  const QString& empty_text() const { return empty_text_; }
  // Whether the empty text shows now: no rows (as filtered), and a text to say.
  bool shows_empty_text() const;

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  void show_menu(const QPoint& at);
  void fit_shown_columns();
  // Which columns show; every column exports whatever shows.
  void show_column_menu(const QPoint& at);
  QString export_name_;
  QString empty_text_;
};

// Gives a chart view a context menu with "Save as PNG...".
void add_png_export_menu(QChartView* view, const QString& export_name);

}  // namespace stepscope::views
