#include "widgets/experiment_group_view.h"

#include <QTabWidget>
#include <QVBoxLayout>

namespace stepscope::views {

ExperimentGroupView::ExperimentGroupView(std::vector<ExperimentView*> views, QWidget* parent)
    : ResultView(parent), views_(std::move(views)) {
  tabs_ = new QTabWidget;
  tabs_->setDocumentMode(true);
  for (auto* view : views_) tabs_->addTab(view, QString::fromStdString(view->descriptor().name));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_);
}

void ExperimentGroupView::show_view(ExperimentView* view) { tabs_->setCurrentWidget(view); }

void ExperimentGroupView::clear() {
  for (auto* view : views_) view->clear();
}

void ExperimentGroupView::show_tables(const std::vector<schema::Table>& tables) {
  for (auto* view : views_) view->show_tables(tables);
}

std::vector<NamedTable> ExperimentGroupView::tables() const {
  std::vector<NamedTable> out;
  for (auto* view : views_) {
    for (const auto& table : view->tables()) out.push_back(table);
  }
  return out;
}

std::vector<NamedChart> ExperimentGroupView::charts() const {
  std::vector<NamedChart> out;
  for (auto* view : views_) {
    for (const auto& chart : view->charts()) out.push_back(chart);
  }
  return out;
}

}  // namespace stepscope::views
