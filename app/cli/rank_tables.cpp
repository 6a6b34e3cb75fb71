#include "cli/rank_tables.h"

#include <chrono>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/rank_launch.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"

namespace stepscope::cli {

RankTableWriter::RankTableWriter(const std::string& command, schema::Table empty, TableOutputs outputs, bool lead,
                                 std::ostream& out)
    : table_(std::move(empty)),
      outputs_(std::move(outputs)),
      environment_(command_environment(command, {})),
      lead_(lead),
      out_(out),
      stdout_csv_(out) {
  if (lead_ && !outputs_.worker_rows && outputs_.csv.empty()) stdout_csv_.write_row(csv_header(table_.columns));
}

void RankTableWriter::write(const std::vector<schema::Value>& row) {
  table_.rows.push_back(row);
  if (!lead_) return;
  if (outputs_.worker_rows) return emit_row_line(out_, table_.columns, row);
  if (outputs_.csv.empty()) stdout_csv_.write_row(csv_row(table_.columns, row));
  else replace_file(outputs_.csv, [&](std::ostream& f) { write_table_csv(f, table_); });
  if (!outputs_.json.empty()) {
    replace_file(outputs_.json, [&](std::ostream& f) { f << write_run_record(RunRecord{environment_, {}, {table_}}); });
  }
}

int run_local_rank_tables(const std::string& command, const std::vector<std::string>& args,
                          const std::vector<int64_t>& nprocs, int timeout_s, const TableOutputs& o,
                          schema::Table& table, std::ostream& out, std::ostream& err) {
  const auto columns = table.columns;
  CsvWriter stdout_csv(out);
  if (o.csv.empty()) stdout_csv.write_row(csv_header(columns));
  const RunEnvironment environment = command_environment(command, args);
  const auto publish = [&](const std::vector<schema::Value>& row) {
    table.rows.push_back(row);
    if (o.csv.empty()) {
      stdout_csv.write_row(csv_row(columns, row));
      out.flush();
    } else {
      replace_file(o.csv, [&](std::ostream& f) { write_table_csv(f, table); });
    }
    if (!o.json.empty()) {
      replace_file(o.json, [&](std::ostream& f) { f << write_run_record(RunRecord{environment, {}, {table}}); });
    }
  };
  const auto worker_args = without_options(args, {"nproc", "csv", "json"}, {});
  int status = kExitOk;
  for (int64_t n : nprocs) {
    const LocalRanksRun run = run_on_local_ranks(
        {"", command, worker_args, static_cast<int>(n), std::chrono::seconds(timeout_s)}, columns, publish,
        o.quiet ? nullptr : &err, &interrupt_flag());
    if (run.outcome.status == dist::LaunchStatus::cancelled || interrupt_flag().is_cancelled()) {
      err << "stepscope-cli " << command << ": interrupted; " << table.rows.size() << " row(s) written\n";
      return kExitInterrupted;
    }
    if (!run.outcome.ok()) {
      err << "stepscope-cli " << command << ": " << n << " ranks: " << run.outcome.message << '\n';
      status = kExitFailure;
    }
  }
  if (!o.quiet) print_table(err, table);
  return status;
}

}  // namespace stepscope::cli
