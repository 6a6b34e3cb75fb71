#include "cli/rank_tables.h"

#include <chrono>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/rank_launch.h"
#include "io/output_file.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "runners/cpu_threads.h"

namespace stepscope::cli {

std::vector<std::pair<std::string, std::string>> output_files(const TableOutputs& o) {
  if (o.worker_rows) return {};
  return {{"--csv", o.csv.empty() ? "-" : o.csv}, {"--json", o.json}};
}

std::string side_csv_path(const std::string& csv, const std::string& table_id) {
  const auto dot = table_id.find('.');
  const std::string part = dot == std::string::npos ? table_id : table_id.substr(dot + 1);
  const bool has_suffix = csv.size() > 4 && csv.compare(csv.size() - 4, 4, ".csv") == 0;
  return (has_suffix ? csv.substr(0, csv.size() - 4) : csv) + "." + part + ".csv";
}

std::string side_table_path(const TableOutputs& o, const std::string& command, const std::string& table_id) {
  if (!o.csv.empty() && is_rewritable_output(o.csv)) return side_csv_path(o.csv, table_id);
  for (const auto& id : o.required_sides) {
    if (id == table_id) return side_csv_path("stepscope-" + command + ".csv", table_id);
  }
  return {};
}

TableFiles::TableFiles(const std::string& command, const std::vector<std::string>& args, TableOutputs outputs,
                       std::vector<schema::Table> empty_tables, std::ostream& out)
    : command_(command),
      outputs_(std::move(outputs)),
      environment_(command_environment(command, args)),
      tables_(std::move(empty_tables)),
      written_(tables_.size(), 0),
      out_(out),
      stdout_csv_(out) {
  if (!outputs_.worker_rows && outputs_.csv.empty()) stdout_csv_.write_row(csv_header(tables_.at(0).columns));
}

void TableFiles::add(size_t table, const std::vector<schema::Value>& row) {
  tables_.at(table).rows.push_back(row);
  if (table == 0 && outputs_.csv.empty()) {
    stdout_csv_.write_row(csv_row(tables_[0].columns, row));
    out_.flush();
  }
}

void TableFiles::flush() {
  for (size_t t = 0; t < tables_.size(); ++t) {
    if (written_[t] == tables_[t].rows.size()) continue;
    written_[t] = tables_[t].rows.size();
    const std::string path = t == 0 ? outputs_.csv : side_table_path(outputs_, command_, tables_[t].schema);
    if (path.empty()) continue;
    replace_file(path, [&](std::ostream& f) { write_table_csv(f, tables_[t]); });
  }
  if (!outputs_.json.empty()) {
    replace_file(outputs_.json, [&](std::ostream& f) { f << write_run_record(RunRecord{environment_, {}, tables_, outputs_.inputs}); });
  }
}

RankTableWriter::RankTableWriter(const std::string& command, std::vector<schema::Table> empty_tables,
                                 TableOutputs outputs, bool lead, std::ostream& out, std::timed_mutex& output_lock)
    : outputs_(outputs),
      lead_(lead),
      out_(out),
      output_lock_(output_lock),
      files_(command, {}, lead && !outputs.worker_rows ? outputs : TableOutputs{"", "", true, true, {}},
             std::move(empty_tables), out) {}

void RankTableWriter::add(size_t table, const std::vector<schema::Value>& row) {
  if (!lead_) return;
  std::lock_guard<std::timed_mutex> lock(output_lock_);
  if (outputs_.worker_rows) {
    const auto& t = files_.tables().at(table);
    return emit_row_line(out_, t.schema, t.columns, row);
  }
  files_.add(table, row);
}

void RankTableWriter::flush() {
  if (!lead_ || outputs_.worker_rows) return;
  std::lock_guard<std::timed_mutex> lock(output_lock_);
  files_.flush();
}

int run_local_rank_tables(const std::string& command, const std::vector<std::string>& args,
                          const std::vector<int64_t>& nprocs, int timeout_s, const TableOutputs& o,
                          std::vector<schema::Table>& tables, std::ostream& out, std::ostream& err) {
  TableFiles files(command, args, o, tables, out);
  const auto publish = [&](size_t table, const std::vector<schema::Value>& row) {
    files.add(table, row);
    if (table == 0) files.flush();
  };
  int status = kExitOk;
  for (int64_t n : nprocs) {
    // The ranks share this machine's threads: each its part of --threads (this process's count),
    // as torchrun gives each of its workers one. With all of them each, ranks' CPU work ran
    // oversubscribed, many times slower (a 1 GB check took minutes on 2 ranks of 32 cores).
    auto worker_args = without_options(args, {"nproc", "csv", "json", "threads"}, {});
    worker_args.insert(worker_args.end(), {"--threads", std::to_string(threads_per_local_rank(cpu_threads(), static_cast<int>(n)))});
    const LocalRanksRun run = run_on_local_ranks(
        {"", command, worker_args, static_cast<int>(n), std::chrono::seconds(timeout_s)}, tables, publish,
        o.quiet ? nullptr : &err, &interrupt_flag());
    files.flush();
    if (run.outcome.status == distributed::LaunchStatus::cancelled || interrupt_flag().is_cancelled()) {
      err << "stepscope-cli " << command << ": interrupted; " << files.tables()[0].rows.size() << " row(s) written\n";
      tables = files.tables();
      return kExitInterrupted;
    }
    if (!run.outcome.ok()) {
      err << "stepscope-cli " << command << ": " << n << " ranks: " << run.outcome.message << '\n';
      status = kExitFailure;
    }
  }
  tables = files.tables();
  if (!o.quiet) print_table(err, tables[0]);
  return status;
}

}  // namespace stepscope::cli
