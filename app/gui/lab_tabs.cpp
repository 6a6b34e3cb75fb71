#include "gui/lab_tabs.h"

#include <QCoreApplication>

#include "gui/communication_tab.h"
#include "gui/distributed_tab.h"
#include "gui/experiment_tab.h"
#include "widgets/communication_view.h"
#include "widgets/distributed_view.h"
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

void attach_lab_tabs(const std::vector<views::ResultView*>& views, const std::vector<views::DeviceChoice>& devices,
                     history::RunHistory& history, QObject* parent, const LabTabCallbacks& callbacks) {
  CommunicationTab* communication_tab = nullptr;
  DistributedTab* distributed_tab = nullptr;
  for (auto* view : views) {
    // Experiments declared by descriptors: one driver each, whatever the experiment.
    QList<views::ExperimentView*> experiments = view->findChildren<views::ExperimentView*>();
    if (auto* own = dynamic_cast<views::ExperimentView*>(view)) experiments.push_back(own);
    for (auto* experiment : experiments) {
      experiment->set_devices(devices);
      report(new ExperimentTab(history, experiment, QCoreApplication::applicationDirPath() + "/stepscope-cli", parent),
             callbacks);
    }
    if (auto* communication = dynamic_cast<views::CommunicationView*>(view)) {
      communication->set_devices(devices);
      const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/stepscope-cli");
      communication_tab = new CommunicationTab(history, communication, cli, parent);
      report(communication_tab, callbacks);
    } else if (auto* distributed = dynamic_cast<views::DistributedView*>(view)) {
      distributed->set_devices(devices);
      const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/stepscope-cli");
      distributed_tab = new DistributedTab(history, distributed, cli, parent);
      report(distributed_tab, callbacks);
    }
  }
  // All-reduce rows just measured feed the bucket overhead model.
  if (communication_tab && distributed_tab) {
    QObject::connect(communication_tab, &CommunicationTab::table_finished, distributed_tab,
                     &DistributedTab::set_collectives);
  }
}

}  // namespace stepscope::gui
