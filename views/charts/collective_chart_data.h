// What the Collectives tab's chart draws from a collective benchmark's table: bus bandwidth
// against message size (log-log), one line per collective, backend, world size and element type
// (named by what varies among them), failed rows marked on the x axis.
#pragma once

#include "charts/sweep_chart_data.h"
#include "schema/table.h"

namespace stepscope::views {

SweepChartData build_collective_chart_data(const schema::Table& table);

}  // namespace stepscope::views
