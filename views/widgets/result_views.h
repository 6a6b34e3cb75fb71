// The main window's result tabs, in the order they appear.
#pragma once

#include <QString>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiment_descriptor.h"
#include "widgets/result_view.h"

namespace stepscope::views {

// `experiment` finds a descriptor by id (the app's registry; views cannot link it).
using ExperimentLookup = std::function<const ExperimentDescriptor&(const std::string& id)>;
struct ResultTab {
  QString title;
  ResultView* view;
  BenchResultsView* bench_view;  // the same view where it presents the benchmark's outcomes, else null
};
std::vector<ResultTab> make_result_views(const ExperimentLookup& experiment);

}  // namespace stepscope::views
