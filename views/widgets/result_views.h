// The main window's result tabs, in the order they appear.
#pragma once

#include <QString>

#include <utility>
#include <vector>

#include "widgets/result_view.h"

namespace stepscope::views {

std::vector<std::pair<QString, ResultView*>> make_result_views();

}  // namespace stepscope::views
