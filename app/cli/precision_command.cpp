#include <iostream>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/option_reader.h"
#include "compat/torch_compat.h"
#include "experiments/precision/precision_lab.h"
#include "experiments/precision/precision_schema.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"

namespace stepscope::cli {

namespace {

std::string precision_usage() {
  return "usage: stepscope-cli precision accumulate [--csv F] [--json F] [--quiet]\n"
         "       stepscope-cli precision autocast [--model toy|PRESET] [--precision bf16|fp16] [--device D]\n"
         "                                        [--batch N] [--context N] [--seed N] [--csv F] [--json F] [--quiet]\n"
         "\n"
         "The handout's precision questions, measured:\n"
         "  accumulate   add 0.01 a thousand times with float32, float16 and bfloat16 accumulators and addends,\n"
         "               naive, Kahan-compensated and pairwise; the results are those PyTorch prints\n"
         "  autocast     one forward pass and loss under autocast, backward after it: the dtype of every\n"
         "               parameter, module output, the logits, the loss and every gradient\n"
         "\n"
         "  --model M        toy (the handout's ToyModel, default) or a Transformer preset (tiny, small, ...)\n"
         "  --precision P    bf16 (default) or fp16\n"
         "  --device D       cpu, cuda or cuda:N (default cpu; LibTorch 1.13 autocasts to bf16 only on the CPU)\n"
         "  --batch N        batch size (default 4)\n"
         "  --context N      tokens per sequence for a Transformer (default 16)\n"
         "  --seed N         seed of the weights and inputs (default 0)\n"
         "  --csv F          write the table to F (default: stdout)\n"
         "  --json F         also write the run record (opens in the app with --open-file)\n"
         "  --quiet          no table and reading on stderr\n"
         "\n"
         "Exit status: 0 ok, 1 the experiment failed or ran out of memory, 2 bad options, 130 interrupted.\n";
}

struct Outputs {
  std::string csv, json;
  bool quiet = false;
};

int publish(const precision::LabOutcome& outcome, const Outputs& outputs, const RunEnvironment& environment,
            const std::string& reading, std::ostream& out, std::ostream& err) {
  if (outputs.csv.empty()) {
    write_table_csv(out, outcome.table);
  } else {
    replace_file(outputs.csv, [&](std::ostream& f) { write_table_csv(f, outcome.table); });
  }
  if (!outputs.json.empty()) {
    const RunRecord record{environment, {}, {outcome.table}};
    replace_file(outputs.json, [&](std::ostream& f) { f << write_run_record(record); });
  }
  if (!outputs.quiet) {
    print_table(err, outcome.table);
    if (!reading.empty()) err << '\n' << reading << '\n';
  }
  if (outcome.status == RunStatus::cancelled) return kExitInterrupted;
  if (outcome.status != RunStatus::ok) {
    err << "stepscope-cli precision: " << to_string(outcome.status) << ": " << outcome.message << '\n';
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

int run_precision_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string what = args.empty() ? "" : args.front();
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (what == "--help" || what == "-h" || what == "help") {
    out << precision_usage();
    return kExitOk;
  }
  Outputs outputs;
  precision::AutocastRequest request;
  try {
    if (what != "accumulate" && what != "autocast") {
      throw CliError(what.empty() ? "precision needs an experiment: accumulate or autocast"
                                  : "unknown precision experiment '" + what + "' (use accumulate or autocast)");
    }
    const bool autocast = what == "autocast";
    std::set<std::string> with_value{"csv", "json"};
    if (autocast) with_value.insert({"model", "precision", "device", "batch", "context", "seed"});
    const OptionReader options("precision " + what, rest, with_value, {"help", "quiet"});
    if (options.has("help")) {
      out << precision_usage();
      return kExitOk;
    }
    outputs = {options.get("csv"), options.get("json"), options.has("quiet")};
    if (outputs.csv == "-") outputs.csv.clear();  // stdout, the default
    check_outputs({{"--csv", outputs.csv.empty() ? "-" : outputs.csv}, {"--json", outputs.json}});
    if (autocast) {
      request.model = options.get("model", "toy");
      request.precision = parse_with("precision", options.get("precision", "bf16"), parse_precision);
      request.device = options.get("device", "cpu");
      request.batch = parse_integer("batch", options.get("batch", "4"), 1);
      request.context = parse_integer("context", options.get("context", "16"), 1);
      request.seed = static_cast<uint64_t>(parse_integer("seed", options.get("seed", "0"), 0));
      try {
        precision::validate(request);
      } catch (const ConfigError& e) {
        throw CliError("--" + (e.field().empty() ? std::string("model") : e.field()) + ": " + e.what());
      }
    }
  } catch (const CliError& error) {
    err << "stepscope-cli precision: error: " << error.what() << '\n';
    return kExitUsage;
  }
  const RunEnvironment environment = command_environment("precision", args);
  StderrProgress progress(err);
  ProgressSink* sink = outputs.quiet ? nullptr : &progress;
  try {
    if (what == "accumulate") {
      const auto outcome = precision::run_accumulation(sink, &interrupt_flag());
      return publish(outcome, outputs, environment, precision::accumulation_reading(outcome.table), out, err);
    }
    const auto outcome = precision::run_autocast(request, sink, &interrupt_flag());
    return publish(outcome, outputs, environment, precision::autocast_reading(outcome.table), out, err);
  } catch (const ConfigError& error) {
    err << "stepscope-cli precision: error: " << error.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& error) {
    err << "stepscope-cli precision: error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
}

}  // namespace stepscope::cli
