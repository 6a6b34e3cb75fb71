#include "gui/history_dock.h"

#include <QGridLayout>
#include <QHBoxLayout>

#include <algorithm>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "models/figure_text.h"

namespace stepscope::gui {

HistoryDock::HistoryDock(history::RunHistory& history, QWidget* parent) : QWidget(parent), history_(history) {
  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Filter runs (model, device, state)"));
  filter_->setClearButtonEnabled(true);
  model_ = new QStandardItemModel(this);
  table_ = new QTableView;
  table_->setObjectName("historyTable");
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);  // two runs to compare
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->setWordWrap(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* open = new QPushButton(tr("Open"));
  auto* remove = new QPushButton(tr("Delete"));
  auto* save = new QPushButton(tr("Save to file..."));
  auto* open_file = new QPushButton(tr("Open file..."));
  auto* compare = new QPushButton(tr("Compare"));
  compare->setToolTip(tr("Select two runs (Ctrl+click) to see them side by side"));
  // Two rows: the dock stays as narrow as the run panel beside it.
  auto* buttons = new QGridLayout;
  int at = 0;
  for (auto* b : {open, compare, remove, save, open_file}) {
    buttons->addWidget(b, at / 3, at % 3);
    ++at;
  }
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(filter_);
  layout->addWidget(table_, 1);
  layout->addLayout(buttons);

  connect(filter_, &QLineEdit::textChanged, this, [this] { refresh(); });
  connect(open, &QPushButton::clicked, this, [this] {
    if (const int64_t run = selected_run()) emit open_requested(run);
  });
  connect(table_, &QTableView::doubleClicked, this, [this] {
    if (const int64_t run = selected_run()) emit open_requested(run);
  });
  connect(remove, &QPushButton::clicked, this, [this] { remove_selected(); });
  connect(save, &QPushButton::clicked, this, [this] {
    if (const int64_t run = selected_run()) emit save_requested(run);
  });
  connect(open_file, &QPushButton::clicked, this, &HistoryDock::open_file_requested);
  connect(compare, &QPushButton::clicked, this, [this] {
    const auto runs = selected_runs();
    if (runs.size() != 2) {
      QMessageBox::information(this, tr("Compare"), tr("Select exactly two runs (Ctrl+click)."));
      return;
    }
    // The older run is A.
    emit compare_requested(std::min(runs[0], runs[1]), std::max(runs[0], runs[1]));
  });
  refresh();
}

namespace {

// "16", or "6 of 16" for a run that stopped short of what it was asked.
QString configurations_text(const history::RunSummary& run) {
  if (run.planned <= 0 || run.planned == run.configurations) return QString::number(run.configurations);
  return HistoryDock::tr("%1 of %2").arg(run.configurations).arg(run.planned);
}

QList<QStandardItem*> row_items(const history::RunSummary& run) {
  QList<QStandardItem*> row{new QStandardItem(run.label), new QStandardItem(history::to_text(run.state)),
                            new QStandardItem(configurations_text(run)), new QStandardItem(run.device),
                            new QStandardItem(views::key_figures_text(run.figures)),
                            new QStandardItem(run.started_at)};
  row.front()->setData(QVariant::fromValue(run.id), Qt::UserRole);
  for (auto* item : row) item->setToolTip(item->text());
  return row;
}

}  // namespace

void HistoryDock::refresh() {
  const int64_t selected = selected_run();
  model_->clear();
  // What tells runs apart first: the dock is narrow, the rest is a scroll (or a wider dock) away.
  model_->setHorizontalHeaderLabels(
      {tr("Run"), tr("State"), tr("Configs"), tr("Device"), tr("Key figures"), tr("Started (UTC)")});
  model_->horizontalHeaderItem(2)->setToolTip(tr("Configurations that ran, of those asked for"));
  model_->horizontalHeaderItem(4)->setToolTip(tr("The experiment's headline figures; a sweep's as a range"));
  if (!history_.is_open()) return;
  for (const auto& run : history_.runs(filter_->text())) {
    model_->appendRow(row_items(run));
    // A refresh while a run goes keeps the run the user picked.
    if (run.id == selected) table_->selectRow(model_->rowCount() - 1);
  }
  table_->resizeColumnsToContents();
  // A sweep's label runs long: elided, whole in its tooltip.
  table_->setColumnWidth(0, std::min(table_->columnWidth(0), 200));
}

void HistoryDock::refresh_run(int64_t run) {
  if (!history_.is_open() || run == 0) return;
  const auto summary = history_.run_summary(run, filter_->text());
  const int row = row_of(run);
  if (!summary) {
    if (row >= 0) model_->removeRow(row);
    return;
  }
  const QList<QStandardItem*> items = row_items(*summary);
  if (row < 0) {
    model_->insertRow(0, items);  // newest first
    return;
  }
  for (int column = 0; column < items.size(); ++column) model_->setItem(row, column, items[column]);
}

int HistoryDock::row_of(int64_t run) const {
  for (int row = 0; row < model_->rowCount(); ++row) {
    if (model_->item(row, 0)->data(Qt::UserRole).toLongLong() == run) return row;
  }
  return -1;
}

int64_t HistoryDock::selected_run() const {
  const auto runs = selected_runs();
  return runs.empty() ? 0 : runs.front();
}

std::vector<int64_t> HistoryDock::selected_runs() const {
  std::vector<int64_t> runs;
  for (const auto& row : table_->selectionModel()->selectedRows()) {
    runs.push_back(model_->item(row.row(), 0)->data(Qt::UserRole).toLongLong());
  }
  return runs;
}

void HistoryDock::remove_selected() {
  const int64_t run = selected_run();
  if (run == 0) return;
  if (QMessageBox::question(this, tr("Delete run"), tr("Delete this run from the history?")) != QMessageBox::Yes) return;
  QString error;
  if (!history_.remove(run, &error)) QMessageBox::warning(this, tr("Delete failed"), error);
  refresh();
}

}  // namespace stepscope::gui
