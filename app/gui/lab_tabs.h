// The result tabs that run experiments of their own (Attention, Collectives, DDP,
// Precision): found among the window's views and given their drivers, which report through the
// callbacks. The collective benchmark's finished tables feed the DDP tab's charts (the
// bucket overhead model).
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

#include "gui/run_gate.h"
#include "history/run_history.h"
#include "widgets/result_view.h"
#include "widgets/experiment_form.h"

namespace stepscope::gui {

struct LabTabCallbacks {
  std::function<void(const QString&)> status;           // progress and outcomes, for the status bar
  std::function<void()> history_changed;                // a run was kept
  std::function<void(const QString&)> history_problem;  // a run could not be kept
};

class ExperimentTab;

// What one experiment measured that another's charts read beside their own: the all-reduce
// rows of the collective benchmark feed the DDP bucket overhead model, whether they were just
// measured or reopened from the history.
struct TableLink {
  const char* from;
  const char* to;
};
const std::vector<TableLink>& table_links();

// The drivers, children of `parent`, run through `gate`; returned for the window's shortcuts.
std::vector<ExperimentTab*> attach_lab_tabs(const std::vector<views::ResultView*>& views,
                                            const std::vector<views::DeviceChoice>& devices,
                                            history::RunHistory& history, RunGate& gate, QObject* parent,
                                            const LabTabCallbacks& callbacks);

}  // namespace stepscope::gui
