// What the app tests find in a main window: an experiment's tab by its descriptor's id, the
// driver behind it, its Run button.
#pragma once

#include <QPushButton>

#include <string>

#include "gui/experiment_tab.h"
#include "gui/main_window.h"
#include "widgets/experiment_view.h"

namespace stepscope::testing_support {

inline views::ExperimentView* experiment_view(gui::MainWindow& window, const std::string& id) {
  for (auto* view : window.findChildren<views::ExperimentView*>()) {
    if (view->descriptor().id == id) return view;
  }
  return nullptr;
}

inline gui::ExperimentTab* driver(gui::MainWindow& window, views::ExperimentView* view) {
  for (auto* tab : window.findChildren<gui::ExperimentTab*>()) {
    if (tab->view() == view) return tab;
  }
  return nullptr;
}

inline QPushButton* run_button(views::ExperimentView* view) { return view->findChild<QPushButton*>("run"); }

}  // namespace stepscope::testing_support
