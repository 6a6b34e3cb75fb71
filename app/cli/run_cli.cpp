#include <optional>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "compat/torch_compat.h"
#include "runners/device_backend.h"
#include "model/model_config.h"

namespace stepscope::cli {

namespace {

int list_models(std::ostream& out) {
  out << "name,d_model,d_ff,layers,heads,vocab,parameters\n";
  for (const auto& name : model_preset_names()) {
    const auto c = model_preset(name);
    out << c.name << ',' << c.d_model << ',' << c.d_ff << ',' << c.num_layers << ',' << c.num_heads << ','
        << c.vocab_size << ',' << parameter_count(c) << '\n';
  }
  return kExitOk;
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  if (argc < 2) {
    err << main_usage();
    return kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  // Commands that measure hold a run in the registry of every Stepscope process's runs.
  std::optional<CommandRun> measuring;
  for (const char* measures : {"bench", "attention", "collectives", "allreduce", "ddp", "precision"}) {
    if (command != measures) continue;
    std::string label = "stepscope-cli " + command;
    for (const auto& arg : args) label += " " + arg;
    measuring.emplace(label.size() > 120 ? label.substr(0, 117) + "..." : label);
  }
  if (command == "bench") return run_bench_command(args, out, err);
  if (command == "attention") return run_attention_command(args, out, err);
  if (command == "check") return run_check_command(args, out, err);
  if (command == "import") return run_import_command(args, out, err);
  // allreduce: the command's former name, which scripts may still use.
  if (command == "collectives" || command == "allreduce") return run_collectives_command(args, out, err);
  if (command == "ddp") return run_ddp_command(args, out, err);
  if (command == "plan") return run_plan_command(args, out, err);
  if (command == "compare") return run_compare_command(args, out, err);
  if (command == "precision") return run_precision_command(args, out, err);
  if ((command == "models" || command == "version" || command == "--version") && !args.empty()) {
    err << "stepscope-cli " << command << ": error: takes no arguments (got '" << args.front() << "')\n";
    return kExitUsage;
  }
  if (command == "models") return list_models(out);
  if (command == "version" || command == "--version") {
    out << "stepscope-cli " << STEPSCOPE_VERSION << '\n' << runtime_versions() << "\nCUDA devices: "
        << compat::cuda_device_count() << '\n';
    return kExitOk;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    out << main_usage();
    return kExitOk;
  }
  err << "stepscope-cli: error: unknown command '" << command << "'\n\n" << main_usage();
  return kExitUsage;
}

}  // namespace stepscope::cli
