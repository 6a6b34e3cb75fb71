#include "cli/experiment_command.h"

#include <map>
#include <memory>
#include <mutex>

#include "core/config_error.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "compat/torch_compat.h"
#include "io/csv_writer.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "runners/cpu_threads.h"
#include "schema/input_arguments.h"

namespace stepscope::cli {

namespace {

using schema::InputField;
using schema::InputKind;

std::vector<InputField> output_fields(bool ranks) {
  std::vector<InputField> f;
  f.push_back({"csv", "CSV file", InputKind::path, "write the table to F, rewritten after every row (default: stdout)",
               "", false, "output", "F"});
  f.push_back({"json", "Run record", InputKind::path, "also write the run record (opens in the app with --open-file)",
               "", false, "output", "F"});
  f.push_back({"quiet", "Quiet", InputKind::flag, "no progress and no table on stderr", "", false, "output", ""});
  f.push_back(cpu_threads_input());
  if (ranks) {
    f.push_back({"worker-rows", "", InputKind::flag, "rows as a launcher's worker writes them", "", false, "output",
                 ""});
    f.back().hidden = true;
  }
  return f;
}

std::string error_prefix(const ExperimentDescriptor& d) { return "stepscope-cli " + d.command_text() + ": "; }

}  // namespace

const schema::InputSchema& command_inputs(const ExperimentDescriptor& d) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<schema::InputSchema>> schemas;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& schema = schemas[d.id];
  if (!schema) {
    schema = std::make_unique<schema::InputSchema>(*d.inputs);
    for (auto& field : output_fields(d.runs_as_ranks)) schema->fields.push_back(std::move(field));
  }
  return *schema;
}

std::string option_message(const ConfigError& error, const schema::InputSchema& inputs) {
  const std::string message = error.what();
  if (message.rfind("--", 0) == 0 || error.field().empty()) return message;
  std::string key = error.field();
  if (inputs.find(key) == nullptr) {
    for (char& c : key) c = c == '_' ? '-' : c;
  }
  return inputs.find(key) == nullptr ? message : schema::option_prefix(key) + message;
}

ExperimentArguments parse_experiment_arguments(const ExperimentDescriptor& d, const std::vector<std::string>& args,
                                               bool check) {
  const schema::InputSchema& all = command_inputs(d);
  ExperimentArguments parsed{schema::InputValues(*d.inputs), {}, false};
  try {
    const schema::ParsedArguments given = schema::parse_arguments(all, d.command_text(), args);
    parsed.help = given.help;
    for (const auto& [key, text] : given.values.given_values()) {
      if (d.inputs->find(key) != nullptr) {
        parsed.inputs.set(key, d.inputs->at(key).kind == InputKind::flag ? "" : text);
      }
    }
    parsed.outputs.csv = given.values.text("csv");
    if (parsed.outputs.csv == "-") parsed.outputs.csv.clear();  // stdout, the default
    parsed.outputs.json = given.values.text("json");
    parsed.outputs.quiet = given.values.flag("quiet");
    parsed.cpu_threads = static_cast<int>(given.values.integer("threads"));
    parsed.outputs.worker_rows = all.find("worker-rows") != nullptr && given.values.flag("worker-rows");
    parsed.outputs.inputs = {d.id, parsed.inputs.given_values()};
  } catch (const ConfigError& e) {
    throw CliError(e.what());  // already names the option
  }
  if (parsed.help) return parsed;
  set_cpu_threads(parsed.cpu_threads);  // this process's, before anything runs
  if (!check) return parsed;
  try {
    if (d.check) d.check(parsed.inputs);
  } catch (const ConfigError& e) {
    throw CliError(option_message(e, *d.inputs));
  }
  return parsed;
}

std::string experiment_usage(const ExperimentDescriptor& d) { return schema::usage_text(command_inputs(d), d.usage); }

int run_experiment_command(const ExperimentDescriptor& d, const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err) {
  std::unique_ptr<ExperimentArguments> a;
  try {
    a = std::make_unique<ExperimentArguments>(parse_experiment_arguments(d, args));
    if (a->help) {
      out << experiment_usage(d);
      return kExitOk;
    }
    // Checked before the first step: a bad path must not cost a run's measurements.
    check_outputs({{"--csv", a->outputs.csv.empty() ? "-" : a->outputs.csv}, {"--json", a->outputs.json}});
  } catch (const CliError& error) {
    err << error_prefix(d) << "error: " << error.what() << '\n';
    return kExitUsage;
  }
  const TableOutputs& outputs = a->outputs;
  RunRecord record{command_environment(d.command_text(), args), {}, {}, outputs.inputs};
  CsvWriter stdout_csv(out);
  size_t rows_on_stdout = 0;
  bool header_on_stdout = false;
  // Files are rewritten after every publication, so an interruption keeps what was measured;
  // devices and pipes (/dev/null, >(...)) get the whole table once, at the end.
  const bool csv_each_row = !outputs.csv.empty() && is_rewritable_output(outputs.csv);
  const bool json_each_row = !outputs.json.empty() && is_rewritable_output(outputs.json);
  const auto write_files = [&](bool final) {
    if (record.tables.empty()) return;
    if (!outputs.csv.empty() && (final || csv_each_row)) {
      replace_file(outputs.csv, [&](std::ostream& f) { write_table_csv(f, record.tables.front()); });
    }
    if (!outputs.json.empty() && (final || json_each_row)) {
      replace_file(outputs.json, [&](std::ostream& f) { f << write_run_record(record); });
    }
  };
  const auto stream_rows = [&] {
    if (!outputs.csv.empty() || record.tables.empty()) return;
    const schema::Table& table = record.tables.front();
    if (!header_on_stdout) {
      stdout_csv.write_row(csv_header(table.columns));
      header_on_stdout = true;
    }
    for (; rows_on_stdout < table.rows.size(); ++rows_on_stdout) stdout_csv.write_row(csv_row(table.columns, table.rows[rows_on_stdout]));
    out.flush();
  };
  const TablePublisher publish = [&](const std::vector<schema::Table>& tables) {
    record.tables = tables;
    stream_rows();
    write_files(false);
  };
  StderrProgress progress(err);
  ExperimentOutcome outcome;
  try {
    outcome = d.run(a->inputs, outputs.quiet ? nullptr : &progress, &interrupt_flag(), publish);
    record.tables = outcome.tables;
    record.environment.concurrent_runs = concurrent_runs();
    record.outcome = RunEnding{outcome.status, outcome.configurations};  // reopens as "cancelled, 7 of 16"
    stream_rows();
    write_files(true);
  } catch (const ConfigError& error) {
    err << error_prefix(d) << "error: " << option_message(error, *d.inputs) << '\n';
    return kExitUsage;
  } catch (const std::exception& error) {
    err << error_prefix(d) << "error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
  if (!outputs.quiet && !record.tables.empty()) {
    print_table(err, record.tables.front());
    const std::string reading = d.reading ? d.reading(record.tables) : "";
    if (!reading.empty()) err << '\n' << reading << '\n';
  }
  if (!outputs.quiet && !record.environment.concurrent_runs.empty()) {
    err << error_prefix(d) << "note: " << record.environment.concurrent_runs << "; its timings may be slower than alone\n";
  }
  if (outputs.csv.empty() && !out) {
    err << error_prefix(d) << "standard output closed before the table was written"
        << (outputs.json.empty() ? "" : "; the results are in " + outputs.json) << '\n';
  }
  if (outcome.status == RunStatus::cancelled || interrupt_flag().is_cancelled()) {
    err << error_prefix(d) << "interrupted" << (outcome.message.empty() ? "" : "; " + outcome.message) << '\n';
    return kExitInterrupted;
  }
  if (outcome.status != RunStatus::ok) {
    err << error_prefix(d) << to_string(outcome.status) << ": " << outcome.message << '\n';
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace stepscope::cli
