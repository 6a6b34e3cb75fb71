// What running an experiment gives, whichever it is: how it ended and its tables (the main
// table first, then side tables such as DDP's per-rank rows and overlap picture).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/run_status.h"
#include "schema/table.h"

namespace stepscope {

struct ExperimentOutcome {
  RunStatus status = RunStatus::ok;
  std::string message;  // why it failed, ran out of memory or was cancelled
  std::vector<schema::Table> tables;
  size_t configurations = 0;  // asked for (the main table's rows when all ran); 0 when not counted
};

}  // namespace stepscope
