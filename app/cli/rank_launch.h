// The CLI's side of `--nproc N`: starts N local workers of this binary (each with torchrun's
// environment and `--worker-rows`), collects the result rows rank 0 prints, and reports a
// failed, hung or cancelled rank by name. Also the worker's side: printing a row for it.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "dist/worker_launcher.h"
#include "schema/table.h"

namespace stepscope::cli {

// What a worker started by run_on_local_ranks is given so that rank 0 prints rows, not files.
inline const char* const kWorkerRowsFlag = "--worker-rows";

struct LocalRanksRun {
  std::vector<std::vector<schema::Value>> rows;  // in the order rank 0 printed them
  dist::LaunchOutcome outcome;
};

struct LocalRanksSpec {
  std::string program;  // a stepscope-cli binary; empty: this process's own executable
  std::string command;  // "allreduce"
  std::vector<std::string> args;
  int nproc = 2;
  std::chrono::milliseconds timeout{60'000};
};

// Runs `program command args... --worker-rows` on `nproc` workers. Each row rank 0 prints
// reaches `on_row` as it comes; rank 0's stderr (progress) goes to `progress` when set; `cancel`
// ends every worker.
LocalRanksRun run_on_local_ranks(const LocalRanksSpec& spec, const std::vector<schema::Column>& columns,
                                 const std::function<void(const std::vector<schema::Value>&)>& on_row,
                                 std::ostream* progress, const CancelFlag* cancel);

// In a worker: one row as a line the launcher reads.
void emit_row_line(std::ostream& out, const std::vector<schema::Column>& columns,
                   const std::vector<schema::Value>& values);

// Removes `--name value` / `--name=value` and switches named in `drop` from `args`.
std::vector<std::string> without_options(const std::vector<std::string>& args, const std::vector<std::string>& with_value,
                                         const std::vector<std::string>& switches);

}  // namespace stepscope::cli
