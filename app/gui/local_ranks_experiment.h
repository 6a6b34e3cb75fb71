// What runs a job of ranks from the app (ExperimentTab, for the Collectives and DDP
// tabs): the worker binary's check, and the experiment LabRun runs:
// for each world size, `command args...` on that many workers, every table's rows gathered as
// rank 0 prints them (the first table published as it grows), stopping at a cancel or a failed
// rank with what was measured kept.
#pragma once

#include <QString>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gui/lab_run.h"
#include "schema/input_values.h"

namespace stepscope::gui {

// Why the workers cannot start (the binary is missing), or nothing.
std::optional<QString> missing_worker(const QString& cli_program);

struct LocalRanksRequest {
  std::string program, command;
  std::vector<std::string> args;
  std::vector<int64_t> world_sizes;
  std::vector<schema::Table> empty_tables;  // the first is the outcome's table, the rest its side tables
  std::chrono::milliseconds timeout{60'000};
};

LabRun::Experiment local_ranks_experiment(LocalRanksRequest request);

}  // namespace stepscope::gui
