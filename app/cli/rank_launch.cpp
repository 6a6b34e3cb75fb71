#include "cli/rank_launch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "io/json_reader.h"
#include "io/table_json.h"

namespace stepscope::cli {

namespace {

const std::string kRowPrefix = "stepscope-row ";

void read_row_line(const std::string& line, const std::vector<schema::Table>& tables, const RowHandler& on_row) {
  const auto json = nlohmann::json::parse(line.substr(kRowPrefix.size()));
  const std::string id = json.value("table", std::string());
  const auto table =
      std::find_if(tables.begin(), tables.end(), [&](const schema::Table& t) { return t.schema == id; });
  if (table == tables.end()) throw std::runtime_error("a row of an unknown table '" + id + "'");
  const auto values = row_from_json(JsonAt(json.at("row"), "row"), table->columns);
  if (on_row) on_row(static_cast<size_t>(table - tables.begin()), values);
}

}  // namespace

void emit_row_line(std::ostream& out, const std::string& table_id, const std::vector<schema::Column>& columns,
                   const std::vector<schema::Value>& values) {
  const nlohmann::json line{{"table", table_id}, {"row", row_to_json(columns, values)}};
  out << kRowPrefix << line.dump() << '\n';
  out.flush();
}

LocalRanksRun run_on_local_ranks(const LocalRanksSpec& ranks, const std::vector<schema::Table>& tables,
                                 const RowHandler& on_row, std::ostream* progress, const CancelFlag* cancel) {
  distributed::WorkerLaunchSpec spec;
  spec.program = ranks.program;
  spec.args = {ranks.command};
  spec.args.insert(spec.args.end(), ranks.args.begin(), ranks.args.end());
  spec.args.push_back(kWorkerRowsFlag);
  spec.nproc = ranks.nproc;
  spec.timeout = ranks.timeout;
  LocalRanksRun run;
  distributed::WorkerCallbacks callbacks;
  std::string unreadable;  // the first row line that could not be read
  callbacks.on_line = [&](int rank, const std::string& line) {
    if (rank != 0 || line.rfind(kRowPrefix, 0) != 0) return;
    try {
      read_row_line(line, tables, on_row);
      ++run.rows;
    } catch (const std::exception& e) {
      if (unreadable.empty()) unreadable = e.what();
    }
  };
  callbacks.on_stderr_line = [&](int rank, const std::string& line) {
    if (progress && rank == 0) *progress << line << '\n' << std::flush;
  };
  run.outcome = distributed::WorkerLauncher(spec).run(callbacks, cancel);
  if (!unreadable.empty() && run.outcome.ok()) {
    run.outcome.status = distributed::LaunchStatus::failed;
    run.outcome.message = "rank 0 printed a row that could not be read: " + unreadable;
  }
  return run;
}

int threads_per_local_rank(int threads, int nproc) { return std::max(1, threads / std::max(1, nproc)); }

std::vector<std::string> without_options(const std::vector<std::string>& args, const std::vector<std::string>& with_value,
                                         const std::vector<std::string>& switches) {
  const auto named = [](const std::string& arg, const std::string& name) {
    return arg == "--" + name || arg.rfind("--" + name + "=", 0) == 0;
  };
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto valued = std::find_if(with_value.begin(), with_value.end(), [&](const auto& n) { return named(a, n); });
    if (valued != with_value.end()) {
      if (a.find('=') == std::string::npos) ++i;  // its value follows
      continue;
    }
    if (std::any_of(switches.begin(), switches.end(), [&](const auto& n) { return a == "--" + n; })) continue;
    out.push_back(a);
  }
  return out;
}

}  // namespace stepscope::cli
