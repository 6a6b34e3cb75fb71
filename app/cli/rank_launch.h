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
#include "experiments/progress.h"
#include "schema/table.h"

namespace stepscope::cli {

// What a worker started by run_on_local_ranks is given so that rank 0 prints rows, not files.
inline const char* const kWorkerRowsFlag = "--worker-rows";

struct LocalRanksRun {
  int64_t rows = 0;  // rows rank 0 printed, of every table
  dist::LaunchOutcome outcome;
};

// A row of one of the command's tables, as rank 0 printed it.
using RowHandler = std::function<void(size_t table, const std::vector<schema::Value>& row)>;

struct LocalRanksSpec {
  std::string program;  // a stepscope-cli binary; empty: this process's own executable
  std::string command;  // "allreduce"
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

// In a worker: every rank, rank 0 or not, quiet or not, says at each progress event (each step)
// that it is alive, as a line on `out` that the launcher takes as output and drops; otherwise a
// rank that prints nothing but rows (or nothing at all) looks hung once a run outlasts --timeout.
// A step that outlasts it still does. Progress also goes to `shown` when set.
class RankHeartbeat final : public ProgressSink {
 public:
  RankHeartbeat(std::ostream& out, ProgressSink* shown) : out_(out), shown_(shown) {}
  void on_progress(const Progress& progress) override;
  void on_kernel_profile(const profiling::KernelProfile& profile) override {
    if (shown_) shown_->on_kernel_profile(profile);
  }

 private:
  std::ostream& out_;
  ProgressSink* shown_;
};

// The worker's progress sink: with --worker-rows, `heartbeat` (which shows `shown`); else `shown`.
inline ProgressSink* worker_progress(bool worker_rows, RankHeartbeat& heartbeat, ProgressSink* shown) {
  return worker_rows ? static_cast<ProgressSink*>(&heartbeat) : shown;
}

// Removes `--name value` / `--name=value` and switches named in `drop` from `args`.
std::vector<std::string> without_options(const std::vector<std::string>& args, const std::vector<std::string>& with_value,
                                         const std::vector<std::string>& switches);

}  // namespace stepscope::cli
