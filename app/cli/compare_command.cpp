// stepscope-cli compare A B: two run records side by side (engine/compare/run_comparison.h),
// and a regression gate for CI (engine/compare/regression_gate.h): exit status 1 when a paired
// figure of B is worse than A's beyond the threshold and the noise, 0 otherwise, 2 when the
// command cannot compare (bad options, unreadable or unlike files, unwritable outputs).
#include <algorithm>
#include <cmath>
#include <iostream>

#include "cli/cli_options.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/history_record.h"
#include "compare/comparison_json.h"
#include "compare/comparison_schema.h"
#include "compare/kernel_comparison.h"
#include "compare/regression_gate.h"
#include "compare/run_comparison.h"
#include "core/config_error.h"
#include "history/history_layout.h"
#include "imports/import_record.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "schema/input_arguments.h"
#include "schema/input_usage.h"
#include "schema/value_format.h"

namespace stepscope::cli {

namespace {

using schema::InputField;
using schema::InputKind;

constexpr const char* kPrefix = "stepscope-cli compare: ";

const schema::InputSchema& compare_inputs() {
  static const schema::InputSchema inputs = [] {
    std::vector<InputField> f;
    const auto thresholds = [&](const char* key, const char* label, const char* help) {
      f.push_back({key, label, InputKind::text, help, "", false, "gate", "P%|M=P%[,...]"});
      f.back().check = [key](const std::string& text) { compare::parse_thresholds(text, key); };
    };
    thresholds("fail-if-slower", "Slower",
               "exit 1 when a duration of B exceeds A's by more than P% and by more than\n"
               "the noise (see the rule below). '5%': every duration; 'step=5%,forward=10%':\n"
               "those measures only (a column's label or key, any case); '10%,step=5%': both");
    thresholds("fail-if-more-memory", "More memory",
               "the same for sizes in bytes (peak memory): '0%' fails on any growth");
    f.push_back({"fail-if-missing", "Missing", InputKind::flag,
                 "exit 1 also when B lacks a configuration A has (one B adds does not fail)", "", false, "gate", ""});
    f.push_back({"history", "History", InputKind::path,
                 "the app's History database that history:ID reads (default: the app's own,\n"
                 "$XDG_DATA_HOME or ~/.local/share, then Stepscope/Stepscope/history.sqlite)",
                 "", false, "input", "DB"});
    f.push_back({"csv", "CSV file", InputKind::path,
                 "write every compared figure as CSV to F ('-': stdout; the table then goes to stderr)", "", false,
                 "output", "F"});
    f.push_back({"json", "JSON file", InputKind::path, "write the comparison, the rule and the verdict as JSON to F",
                 "", false, "output", "F"});
    f.push_back({"top", "Kernels shown", InputKind::integer,
                 "kernel totals the console shows, largest movers first (the files hold all)", "10", false, "output",
                 "N"});
    f.back().min_integer = 0;
    f.push_back({"quiet", "Quiet", InputKind::flag, "no table and no verdict line; the exit status says it", "", false,
                 "output", ""});
    return schema::InputSchema{f};
  }();
  return inputs;
}

std::string compare_usage() {
  return schema::usage_text(
      compare_inputs(),
      {"stepscope-cli compare A B [options]",
       "Compares two runs: A and B are each a run record (a command's --json, a run the app saved), a\n"
       "run of the app's History as history:ID (ID: the number the History dock shows; --history names\n"
       "the database), or a profile PyTorch wrote, imported as `stepscope-cli import` reads it (a\n"
       "torch.profiler trace, a CUDA memory snapshot). Compared: the step benchmark's\n"
       "configurations and every other table both hold, rows paired by their identity settings (model,\n"
       "context, batch, precision, mode, ...). Where no row of B has the same settings as a row of A, rows\n"
       "differing in one setting pair and the change is named ('Context 128 -> 256'); two single runs pair\n"
       "whatever differs. Per paired row and measure: A, B, B - A and B / A; where both runs profiled a\n"
       "configuration's kernels, the kernel totals, largest movers first. Rows only one run has are\n"
       "listed. Where a mean has a spread, the console shows it with its n: 12.35 \u00b1 0.41 ms (n=10).\n",
       "the rule:\n"
       "  B regresses when  B - A > P x A  and  B - A > 2 x sqrt(sA^2/nA + sB^2/nB)\n"
       "  s: the standard deviation of the measured steps behind a mean (bench, attention), n: their count\n"
       "  (1 where a table does not say); where no spread is kept (memory peaks) the threshold alone.\n"
       "  B - A exactly at P x A passes. A figure B lacks because its row failed (OOM, error) where A's\n"
       "  ran regresses. Kernel totals, throughput and MFU are compared, never gated.\n"
       "\nexit status: 0 no regression (or no gate given), 1 a paired figure regressed (or, with\n"
       "--fail-if-missing, B lacks a configuration of A), 2 bad options, unreadable or unlike files,\n"
       "unwritable outputs.\n"
       "\nexample (CI): stepscope-cli bench --model small --steps 20 --json new.json --quiet &&\n"
       "              stepscope-cli compare baseline.json new.json --fail-if-slower 5% --fail-if-more-memory 2%\n"
       "         stepscope-cli compare history:12 history:15\n"
       "         stepscope-cli compare before.trace.json.gz after.trace.json.gz\n"});
}

struct CompareOptions {
  std::string a, b;
  compare::GateRule rule;
  std::string history;  // the database history:ID reads
  std::string csv, json;
  size_t top = 10;
  bool quiet = false;
  bool help = false;
};

// A and B are the arguments that are neither options nor their values.
CompareOptions parse_options(const std::vector<std::string>& args) {
  const schema::InputSchema& inputs = compare_inputs();
  std::vector<std::string> options, files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0 && arg != "-h") {
      files.push_back(arg);
      continue;
    }
    options.push_back(arg);
    const InputField* field = inputs.find(arg.substr(2));
    const bool takes_value = field != nullptr && field->kind != InputKind::flag && arg.find('=') == std::string::npos;
    if (takes_value && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) options.push_back(args[++i]);
  }
  schema::ParsedArguments parsed{schema::InputValues(inputs), false};
  try {
    parsed = schema::parse_arguments(inputs, "compare", options);
  } catch (const ConfigError& e) {
    throw CliError(e.what());  // already names the option
  }
  CompareOptions o;
  o.help = parsed.help;
  if (o.help) return o;
  if (files.size() != 2) {
    throw CliError("needs two run records, A and B; got " + std::to_string(files.size()) +
                   (files.empty() ? "" : " ('" + files.front() + (files.size() > 1 ? "', ..." : "'") + ")") +
                   " (see stepscope-cli compare --help)");
  }
  o.a = files[0];
  o.b = files[1];
  const schema::InputValues& v = parsed.values;
  if (v.given("fail-if-slower")) o.rule.slower = compare::parse_thresholds(v.text("fail-if-slower"), "fail-if-slower");
  if (v.given("fail-if-more-memory")) {
    o.rule.more_memory = compare::parse_thresholds(v.text("fail-if-more-memory"), "fail-if-more-memory");
  }
  o.rule.fail_if_missing = v.flag("fail-if-missing");
  o.history = v.given("history") ? v.text("history") : history::default_history_file();
  o.csv = v.text("csv");
  o.json = v.text("json");
  o.top = static_cast<size_t>(v.integer("top"));
  o.quiet = v.flag("quiet");
  return o;
}

// A run record, a run of the History, or a profile imported on the way.
RunRecord read_record(const std::string& side, const std::string& argument, const std::string& history) {
  try {
    if (const auto run = history_run_id(argument)) return read_history_run(history, *run);
    const auto kind = imports::sniff_profile(argument);
    if (kind == imports::ProfileKind::run_record) return read_run_record_file(argument);
    return imports::import_profile(argument, kind);
  } catch (const std::runtime_error& e) {  // CliError, RunRecordError, ImportError: each names the file
    throw CliError(side + ": " + e.what());
  }
}

// The files A and B read, for the outputs not to replace them.
std::string input_file(const std::string& argument, const std::string& history) {
  return history_run_id(argument) ? history : argument;
}

// A figure in the row's unit, as the app shows it; a duration with its spread ("12.35 ± 0.41 ms").
// With the spread, its n: the gate's rule weighs each side's spread by it.
std::string figure_text(const schema::Value& value, schema::ColumnKind kind, const std::optional<double>& spread,
                        const std::optional<int64_t>& samples) {
  const auto number = schema::number_of(value);
  if (!number) return schema::missing_text();
  if (kind == schema::ColumnKind::milliseconds && spread && std::isfinite(*number)) {
    return schema::duration_ms_text(*number, *spread) + (samples ? " (n=" + std::to_string(*samples) + ")" : "");
  }
  if (*number < 0) return "-" + schema::display_text(-*number, kind);  // B - A keeps its sign
  return schema::display_text(*number, kind);
}

// The console's table: the comparison's shown columns, A, B and B - A each in its row's unit,
// and at most `top` kernel totals (the rest counted in `hidden_kernels`).
schema::Table console_table(const compare::Comparison& comparison, size_t top, size_t& hidden_kernels) {
  compare::Comparison shown;
  size_t kernels = 0;
  hidden_kernels = 0;
  for (const auto& r : comparison.rows) {
    if (r.table == compare::kKernelTotals && kernels++ >= top) {
      ++hidden_kernels;
      continue;
    }
    shown.rows.push_back(r);
  }
  schema::Table table = compare::comparison_table(shown);
  for (size_t c = 0; c < table.columns.size(); ++c) {
    auto& column = table.columns[c];
    if (!compare::in_row_unit(column) || column.role != schema::ColumnRole::measure) continue;
    column.kind = schema::ColumnKind::text;
    for (size_t r = 0; r < table.rows.size(); ++r) {
      const auto& row = shown.rows[r];
      const std::optional<double>* spread = column.key == "a" ? &row.a_std : column.key == "b" ? &row.b_std : nullptr;
      const std::optional<int64_t>* samples =
          column.key == "a" ? &row.a_samples : column.key == "b" ? &row.b_samples : nullptr;
      std::string text = figure_text(table.rows[r][c], row.kind, spread != nullptr ? *spread : std::nullopt,
                                     samples != nullptr ? *samples : std::nullopt);
      if (column.key == "b_minus_a" && schema::number_of(table.rows[r][c]).value_or(0) > 0) text = "+" + text;
      table.rows[r][c] = text;
    }
  }
  return table;
}

void print_comparison(std::ostream& out, const CompareOptions& o, const compare::Comparison& comparison) {
  out << "A: " << o.a << "\nB: " << o.b << '\n';
  out << (comparison.changes.empty() ? "Same settings: rows paired by configuration"
                                     : "Changed from A to B: " + comparison.changes)
      << "\n\n";
  size_t hidden = 0;
  print_table(out, console_table(comparison, o.top, hidden));
  if (hidden > 0) {
    out << "... and " << hidden << " more kernel totals"
        << (o.csv.empty() && o.json.empty() ? " (--csv or --json writes them all)" : " (in the files)") << '\n';
  }
  out << "\nrule: " << compare::rule_text(o.rule) << '\n';
  out << compare::verdict_text(comparison, o.rule) << '\n';
}

int compare(const CompareOptions& o, std::ostream& out, std::ostream& err) {
  check_outputs({{"--csv", o.csv}, {"--json", o.json}},
                {{"A", input_file(o.a, o.history)}, {"B", input_file(o.b, o.history)}});
  const RunRecord a = read_record("A", o.a, o.history);
  const RunRecord b = read_record("B", o.b, o.history);
  compare::Comparison comparison = compare::compare_runs(a, b);
  compare::apply_gate(comparison, o.rule);
  if (!o.csv.empty()) {
    replace_file(o.csv, [&](std::ostream& f) { write_table_csv(f, compare::comparison_table(comparison)); });
  }
  if (!o.json.empty()) {
    replace_file(o.json, [&](std::ostream& f) {
      f << compare::comparison_to_json(comparison, o.rule, o.a, o.b).dump(1) << '\n';
    });
  }
  if (!o.quiet) print_comparison(o.csv == "-" ? err : out, o, comparison);
  return compare::count_regressions(comparison) > 0 ? kExitFailure : kExitOk;
}

}  // namespace

int run_compare_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    const CompareOptions o = parse_options(args);
    if (o.help) {
      out << compare_usage();
      return kExitOk;
    }
    return compare(o, out, err);
  } catch (const ConfigError& e) {
    err << kPrefix << "error: " << schema::option_prefix(e.field()) << e.what() << '\n';
  } catch (const std::exception& e) {  // CliError, CompareError, FileWriteError: none measured anything
    err << kPrefix << "error: " << e.what() << '\n';
  }
  return kExitUsage;
}

}  // namespace stepscope::cli
