// A distributed command's tables on both sides of `--nproc` (collectives, ddp). The first table
// is the main one: stdout CSV or --csv, rewritten after every row. The others (each rank's
// rows, the overlap picture) are written beside --csv as <stem>.<part>.csv, where the table's
// schema id is "<command>.<part>", and every table goes into the --json run record.
//  - On a rank, rank 0 writes (a line per row for the launcher with --worker-rows).
//  - On the launcher, the local workers of each --nproc value run through rank_launch and their
//    rows are gathered into the same tables.
#pragma once

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "io/csv_writer.h"
#include "io/run_environment.h"
#include "io/run_record_json.h"
#include "schema/table.h"

namespace stepscope::cli {

struct TableOutputs {
  std::string csv;   // empty: stdout
  std::string json;  // empty: none
  bool quiet = false;
  bool worker_rows = false;  // this rank prints rows for a launcher
  // Side tables the user asked for (ddp's memory profile): without a --csv file beside which
  // to write them, they go beside "stepscope-<command>.csv" in the working folder, as bench's
  // profiles do, rather than nowhere.
  std::vector<std::string> required_sides;
  RunInputs inputs = {};  // what the run was asked: the run record keeps it
};

// The files to check before a run: none for a worker, else --csv (or stdout) and --json.
std::vector<std::pair<std::string, std::string>> output_files(const TableOutputs& outputs);

// Where a side table goes beside `csv`: "r.csv" and "ddp.timeline" give "r.timeline.csv".
std::string side_csv_path(const std::string& csv, const std::string& table_id);
// Where side table `table_id` of `command` is written: beside --csv when that is a file, else
// beside "stepscope-<command>.csv" when required, else nowhere (empty).
std::string side_table_path(const TableOutputs& outputs, const std::string& command, const std::string& table_id);

// The files of a run's tables, rewritten whole on flush().
class TableFiles {
 public:
  TableFiles(const std::string& command, const std::vector<std::string>& args, TableOutputs outputs,
             std::vector<schema::Table> empty_tables, std::ostream& out);
  // Row of tables()[table]; main-table rows reach stdout at once when that is the CSV.
  void add(size_t table, const std::vector<schema::Value>& row);
  void flush();
  std::vector<schema::Table>& tables() { return tables_; }

 private:
  std::string command_;
  TableOutputs outputs_;
  RunEnvironment environment_;
  std::vector<schema::Table> tables_;
  std::vector<size_t> written_;  // rows of each table already in its file
  std::ostream& out_;
  CsvWriter stdout_csv_;
};

// On one rank of a job; only the lead (rank 0) writes anything, holding `output_lock` (the rank's
// supervisor ends the process only between writes). Call flush() after each row's set of rows.
class RankTableWriter {
 public:
  RankTableWriter(const std::string& command, std::vector<schema::Table> empty_tables, TableOutputs outputs, bool lead,
                  std::ostream& out, std::timed_mutex& output_lock);
  void add(size_t table, const std::vector<schema::Value>& row);
  void flush();

 private:
  TableOutputs outputs_;
  bool lead_;
  std::ostream& out_;
  std::timed_mutex& output_lock_;
  TableFiles files_;
};

// The launcher: `command args...` (without --nproc, --csv, --json) on each value of `nprocs`,
// rows published into `tables` as they come (files rewritten at each main-table row, which a
// rank prints after its side rows). Returns kExitOk, kExitFailure (a rank failed) or
// kExitInterrupted; prints the main table on `err` unless quiet. Rows' own status is the caller's.
int run_local_rank_tables(const std::string& command, const std::vector<std::string>& args,
                          const std::vector<int64_t>& nprocs, int timeout_s, const TableOutputs& outputs,
                          std::vector<schema::Table>& tables, std::ostream& out, std::ostream& err);

}  // namespace stepscope::cli
