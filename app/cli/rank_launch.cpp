#include "cli/rank_launch.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "io/json_reader.h"
#include "io/table_json.h"

namespace stepscope::cli {

namespace {

const std::string kRowPrefix = "stepscope-row ";

}  // namespace

void emit_row_line(std::ostream& out, const std::vector<schema::Column>& columns,
                   const std::vector<schema::Value>& values) {
  out << kRowPrefix << row_to_json(columns, values).dump() << '\n';
  out.flush();
}

LocalRanksRun run_on_local_ranks(const LocalRanksSpec& ranks, const std::vector<schema::Column>& columns,
                                 const std::function<void(const std::vector<schema::Value>&)>& on_row,
                                 std::ostream* progress, const CancelFlag* cancel) {
  dist::WorkerLaunchSpec spec;
  spec.program = ranks.program;
  spec.args = {ranks.command};
  spec.args.insert(spec.args.end(), ranks.args.begin(), ranks.args.end());
  spec.args.push_back(kWorkerRowsFlag);
  spec.nproc = ranks.nproc;
  spec.timeout = ranks.timeout;
  LocalRanksRun run;
  dist::WorkerCallbacks callbacks;
  callbacks.on_line = [&](int rank, const std::string& line) {
    if (rank != 0 || line.rfind(kRowPrefix, 0) != 0) return;
    const auto json = nlohmann::json::parse(line.substr(kRowPrefix.size()));
    auto values = row_from_json(JsonAt(json, "row"), columns);
    run.rows.push_back(values);
    if (on_row) on_row(values);
  };
  callbacks.on_stderr_line = [&](int rank, const std::string& line) {
    if (progress && rank == 0) *progress << line << '\n' << std::flush;
  };
  run.outcome = dist::WorkerLauncher(spec).run(callbacks, cancel);
  return run;
}

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
