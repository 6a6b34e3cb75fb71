// A distributed command's table on both sides of `--nproc` (allreduce, ddp): on a rank, rank 0
// writes each combined row (a line for the launcher with --worker-rows, else stdout CSV or a
// file rewritten after every row, and the run record); on the launcher, the local workers of
// each --nproc value started through rank_launch and their rows gathered into one table.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "io/csv_writer.h"
#include "io/run_environment.h"
#include "schema/table.h"

namespace stepscope::cli {

struct TableOutputs {
  std::string csv;   // empty: stdout
  std::string json;  // empty: none
  bool quiet = false;
  bool worker_rows = false;  // this rank prints rows for a launcher
};

// On one rank of a job; only the lead (rank 0) writes anything.
class RankTableWriter {
 public:
  RankTableWriter(const std::string& command, schema::Table empty, TableOutputs outputs, bool lead, std::ostream& out);
  void write(const std::vector<schema::Value>& row);
  const schema::Table& table() const { return table_; }

 private:
  schema::Table table_;
  TableOutputs outputs_;
  RunEnvironment environment_;
  bool lead_;
  std::ostream& out_;
  CsvWriter stdout_csv_;
};

// The launcher: `command args...` (without --nproc, --csv, --json) on each value of `nprocs`,
// rows published into `table` as they come. Returns kExitOk, kExitFailure (a rank failed) or
// kExitInterrupted; prints the table on `err` unless quiet. Rows' own status is the caller's.
int run_local_rank_tables(const std::string& command, const std::vector<std::string>& args,
                          const std::vector<int64_t>& nprocs, int timeout_s, const TableOutputs& outputs,
                          schema::Table& table, std::ostream& out, std::ostream& err);

}  // namespace stepscope::cli
