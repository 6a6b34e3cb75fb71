// The CLI's side of `--nproc N`: starts N local workers of this binary (each with torchrun's
// environment and `--worker-rows`), collects the result rows rank 0 prints, and reports a
// failed, hung or cancelled rank by name. Also the worker's side: printing a row for it (its
// heartbeat comes from its supervisor, rank_job.h).
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "distributed/worker_launcher.h"
#include "core/progress.h"
#include "schema/table.h"

namespace stepscope::cli {

// What a worker started by run_on_local_ranks is given so that rank 0 prints rows, not files.
inline const char* const kWorkerRowsFlag = "--worker-rows";

struct LocalRanksRun {
  int64_t rows = 0;  // rows rank 0 printed, of every table
  distributed::LaunchOutcome outcome;
};

// A row of one of the command's tables, as rank 0 printed it.
using RowHandler = std::function<void(size_t table, const std::vector<schema::Value>& row)>;

struct LocalRanksSpec {
  std::string program;  // a stepscope-cli binary; empty: this process's own executable
  std::string command;  // "collectives"
  std::vector<std::string> args;
  int nproc = 2;
  std::chrono::milliseconds timeout{60'000};
};

// Runs `program command args... --worker-rows` on `nproc` workers. Each row rank 0 prints
// reaches `on_row` as it comes, with the index in `tables` (ids and columns; the rows are not
// touched) of the table it belongs to; rank 0's stderr (progress) goes to `progress` when set;
// `cancel` ends every worker. A line naming a table not in `tables` is an error of the worker.
LocalRanksRun run_on_local_ranks(const LocalRanksSpec& spec, const std::vector<schema::Table>& tables,
                                 const RowHandler& on_row, std::ostream* progress, const CancelFlag* cancel);

// In a worker: one row of table `table_id` as a line the launcher reads.
void emit_row_line(std::ostream& out, const std::string& table_id, const std::vector<schema::Column>& columns,
                   const std::vector<schema::Value>& values);

// Each of `nproc` local ranks' share of `threads`: threads / nproc, at least 1.
int threads_per_local_rank(int threads, int nproc);

// Removes `--name value` / `--name=value` and switches named in `drop` from `args`.
std::vector<std::string> without_options(const std::vector<std::string>& args, const std::vector<std::string>& with_value,
                                         const std::vector<std::string>& switches);

}  // namespace stepscope::cli
