#include "gui/lab_tabs.h"

#include <QCoreApplication>

#include <map>
#include <string>

#include "gui/experiment_tab.h"
#include "widgets/experiment_view.h"

namespace stepscope::gui {

namespace {

template <class Tab>
void report(Tab* tab, const LabTabCallbacks& callbacks) {
  QObject::connect(tab, &Tab::status, tab, callbacks.status);
  QObject::connect(tab, &Tab::history_changed, tab, callbacks.history_changed);
  QObject::connect(tab, &Tab::history_problem, tab, callbacks.history_problem);
}

}  // namespace

const std::vector<TableLink>& table_links() {
  static const std::vector<TableLink> links = {{"collectives", "ddp"}};
  return links;
}

std::vector<ExperimentTab*> attach_lab_tabs(const std::vector<views::ResultView*>& views,
                                            const std::vector<views::DeviceChoice>& devices,
                                            history::RunHistory& history, RunGate& gate, QObject* parent,
                                            const LabTabCallbacks& callbacks) {
  std::vector<ExperimentTab*> all;
  const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/stepscope-cli");
  std::map<std::string, ExperimentTab*> drivers;
  std::map<std::string, views::ExperimentView*> experiment_views;
  for (auto* view : views) {
    // Experiments declared by descriptors: one driver each, whatever the experiment.
    QList<views::ExperimentView*> experiments = view->findChildren<views::ExperimentView*>();
    if (auto* own = dynamic_cast<views::ExperimentView*>(view)) experiments.push_back(own);
    for (auto* experiment : experiments) {
      experiment->set_devices(devices);
      auto* driver = new ExperimentTab(history, gate, experiment, cli, parent);
      report(driver, callbacks);
      all.push_back(driver);
      drivers[experiment->descriptor().id] = driver;
      experiment_views[experiment->descriptor().id] = experiment;
    }
  }
  for (const auto& link : table_links()) {
    const auto from = drivers.find(link.from);
    const auto to = experiment_views.find(link.to);
    if (from == drivers.end() || to == experiment_views.end()) continue;
    QObject::connect(from->second, &ExperimentTab::tables_finished, to->second,
                     &views::ExperimentView::show_linked_tables);
  }
  return all;
}

}  // namespace stepscope::gui
