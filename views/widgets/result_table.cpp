#include "widgets/result_table.h"

#include <QApplication>
#include <QChartView>
#include <QClipboard>
#include <QFileDialog>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSortFilterProxyModel>

#include "charts/chart_export.h"
#include "export/table_export.h"
#include "models/roles.h"
#include "models/schema_table_model.h"

namespace stepscope::views {

ResultTable::ResultTable(QAbstractItemModel* model, const QString& export_name, QSortFilterProxyModel* proxy,
                         QWidget* parent)
    : QTableView(parent), export_name_(export_name) {
  if (!proxy) {
    proxy = new QSortFilterProxyModel(this);
    proxy->setSortRole(ExactValueRole);
    proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
  }
  proxy->setSourceModel(model);
  setModel(proxy);
  setSortingEnabled(true);
  sortByColumn(-1, Qt::AscendingOrder);  // the model's own order until a header is clicked
  setAlternatingRowColors(true);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setWordWrap(false);
  setTextElideMode(Qt::ElideMiddle);
  verticalHeader()->setVisible(false);
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  horizontalHeader()->setStretchLastSection(true);
  horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  horizontalHeader()->setHighlightSections(false);
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, &ResultTable::show_menu);
  if (const auto* schema_model = qobject_cast<const SchemaTableModel*>(model)) {
    // Details stay in the model (exports write them) and a header menu brings them back.
    for (int c = 0; c < schema_model->columnCount(); ++c) setColumnHidden(c, !schema_model->shown_by_default(c));
  }
  horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(horizontalHeader(), &QWidget::customContextMenuRequested, this, &ResultTable::show_column_menu);
  // Fit the columns to their contents once rows arrive, then leave them to the user.
  connect(model, &QAbstractItemModel::rowsInserted, this, [this] {
    if (this->model()->rowCount() <= 64) fit_shown_columns();
  });
  connect(model, &QAbstractItemModel::modelReset, this, [this] { fit_shown_columns(); });
}

const QAbstractItemModel* ResultTable::shown_model() const { return model(); }

// Hidden columns are not measured: a schema table keeps dozens of them for export.
void ResultTable::fit_shown_columns() {
  for (int c = 0; c < model()->columnCount(); ++c) {
    if (!isColumnHidden(c)) resizeColumnToContents(c);
  }
}

void ResultTable::set_empty_text(const QString& text) {
  empty_text_ = text;
  viewport()->update();
}

bool ResultTable::shows_empty_text() const { return !empty_text_.isEmpty() && model()->rowCount() == 0; }

void ResultTable::paintEvent(QPaintEvent* event) {
  QTableView::paintEvent(event);
  if (!shows_empty_text()) return;
  QPainter painter(viewport());
  painter.setPen(palette().color(QPalette::PlaceholderText));
  const int margin = fontMetrics().height();
  painter.drawText(viewport()->rect().adjusted(margin, margin, -margin, -margin),
                   Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, empty_text_);
}

void ResultTable::copy_selection() const {
  const QString text = selection_to_tsv(*model(), selectionModel()->selectedIndexes());
  if (!text.isEmpty()) QApplication::clipboard()->setText(text);
}

void ResultTable::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Copy)) {
    copy_selection();
    return;
  }
  QTableView::keyPressEvent(event);
}

void ResultTable::show_menu(const QPoint& at) {
  QMenu menu(this);
  menu.addAction(tr("Copy"), this, [this] { copy_selection(); }, QKeySequence::Copy);
  menu.addAction(tr("Select all"), this, [this] { selectAll(); });
  menu.addSeparator();
  menu.addAction(tr("Export CSV..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export table"), export_name_ + ".csv", "CSV (*.csv)");
    if (path.isEmpty()) return;
    QString error;
    if (!write_table_csv(*model(), path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
  });
  menu.exec(viewport()->mapToGlobal(at));
}

void ResultTable::show_column_menu(const QPoint& at) {
  QMenu menu(this);
  for (int c = 0; c < model()->columnCount(); ++c) {
    QAction* action = menu.addAction(model()->headerData(c, Qt::Horizontal).toString());
    action->setCheckable(true);
    action->setChecked(!isColumnHidden(c));
    connect(action, &QAction::toggled, this, [this, c](bool shown) { setColumnHidden(c, !shown); });
  }
  menu.exec(horizontalHeader()->viewport()->mapToGlobal(at));
}

void add_png_export_menu(QChartView* view, const QString& export_name) {
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(view, &QWidget::customContextMenuRequested, view, [view, export_name](const QPoint& at) {
    QMenu menu(view);
    menu.addAction(QObject::tr("Save as PNG..."), view, [view, export_name] {
      const QString path =
          QFileDialog::getSaveFileName(view, QObject::tr("Save chart"), export_name + ".png", "PNG (*.png)");
      if (path.isEmpty()) return;
      QString error;
      if (!save_chart_png(*view, path, &error)) QMessageBox::warning(view, QObject::tr("Save failed"), error);
    });
    menu.exec(view->mapToGlobal(at));
  });
}

}  // namespace stepscope::views
