#include "cli/cli_options.h"

#include "core/config_error.h"
#include "cli/experiment_command.h"
#include "experiments/bench/bench_inputs.h"
#include "experiments/common_inputs.h"
#include "schema/input_arguments.h"
#include "schema/input_usage.h"
#include "registry/experiment_registry.h"
#include "io/output_file.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace stepscope::cli {

BenchOptions parse_bench_options(const std::vector<std::string>& args) {
  const ExperimentDescriptor& bench = *find_experiment("bench");
  // The configurations' own checks here; whether this machine can run them, in the command.
  const ExperimentArguments parsed = parse_experiment_arguments(bench, args, false);
  BenchOptions result;
  result.help = parsed.help;
  if (result.help) return result;
  result.quiet = parsed.outputs.quiet;
  result.csv_path = parsed.outputs.csv;
  result.json_path = parsed.outputs.json;
  const schema::InputValues& v = parsed.inputs;
  result.short_kernel_names = v.flag("short-names");
  result.memory_points = static_cast<size_t>(v.integer("memory-points"));
  try {
    result.spec = bench_spec(v);
    expand(result.spec);  // every configuration is checked before anything runs
  } catch (const ConfigError& error) {
    throw CliError(option_message(error, bench_inputs()));
  }
  result.inputs = std::make_shared<schema::InputValues>(v);
  return result;
}

namespace {

using schema::InputField;
using schema::InputKind;

const schema::InputSchema& check_inputs() {
  static const schema::InputSchema inputs = [] {
    std::vector<InputField> f;
    const auto path = [&](const char* key, const char* label, const char* value, const char* help, bool required) {
      f.push_back({key, label, InputKind::path, help, "", false, "run", value});
      f.back().required = required;
    };
    path("checkpoint", "Checkpoint", "F", "the state_dict file (PyTorch >= 1.6 zip format)", true);
    path("tokens", "Tokens", "T.npy", "token ids, integer array of shape (batch, seq)", true);
    f.push_back({"heads", "Heads", InputKind::integer, "number of attention heads (not stored in a state_dict)", "",
                 false, "run", "H"});
    f.back().required = true;
    path("targets", "Targets", "Y.npy", "target ids of the same shape: prints 'loss <value>'", false);
    path("out", "Logits", "LOGITS.npy", "writes the logits as float32 (batch, seq, vocab)", false);
    path("adamw-step-out", "AdamW step", "CKPT",
         "takes one AdamW step (lr 1e-3, betas 0.9/0.999, eps 1e-8, decay 0.01)\n"
         "on the loss and saves the updated state_dict (needs --targets)",
         false);
    f.push_back({"rope-theta", "RoPE base", InputKind::number, "RoPE base", "10000", false, "run", "X"});
    f.push_back(device_input());
    return schema::InputSchema{f};
  }();
  return inputs;
}

}  // namespace

CheckOptions parse_check_options(const std::vector<std::string>& args) {
  schema::ParsedArguments parsed{schema::InputValues(check_inputs()), false};
  try {
    parsed = schema::parse_arguments(check_inputs(), "check", args);
  } catch (const ConfigError& e) {
    throw CliError(e.what());
  }
  CheckOptions result;
  result.help = parsed.help;
  if (result.help) return result;
  const schema::InputValues& v = parsed.values;
  result.checkpoint = v.text("checkpoint");
  result.tokens = v.text("tokens");
  result.targets = v.text("targets");
  result.logits_out = v.text("out");
  result.adamw_out = v.text("adamw-step-out");
  result.heads = v.integer("heads");
  result.rope_theta = v.number("rope-theta");
  ModelConfig probe;  // the model's own rule, said before any file is read
  probe.rope_theta = result.rope_theta;
  try {
    validate(probe);
  } catch (const ConfigError& e) {
    throw CliError(std::string("--rope-theta: ") + e.what());
  }
  result.device = parse_device(v.text("device"));
  if (!result.adamw_out.empty() && result.targets.empty()) {
    throw CliError("--adamw-step-out needs --targets: the AdamW step follows the gradient of the loss");
  }
  return result;
}

std::string check_usage() {
  return schema::usage_text(
      check_inputs(),
      {"stepscope-cli check --checkpoint F --tokens T.npy --heads H [options]",
       "Loads a state_dict saved by the Python reference (torch.save(model.state_dict(), F)), reads the\n"
       "model's shape from its tensors, and runs it on int64 token ids of shape (batch, seq) in fp32.\n",
       ""});
}

std::string profile_output_stem(const BenchOptions& options, const BenchConfig& config) {
  // Beside the first output that is a file; /dev/null or a pipe has no "beside".
  std::string base = "stepscope-bench";
  for (const std::string* path : {&options.json_path, &options.csv_path}) {
    if (!path->empty() && is_rewritable_output(*path)) base = *path;
  }
  for (const char* extension : {".csv", ".json"}) {
    const std::string ext = extension;
    if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0) {
      base.resize(base.size() - ext.size());
    }
  }
  std::string label = config.model.name + "-ctx" + std::to_string(config.context) + "-b" +
                      std::to_string(config.batch) + "-" + to_string(config.precision) + "-" + to_string(config.mode);
  // Configurations differing only in attention must not share files; naive keeps the old names.
  if (config.model.attention != AttentionImpl::naive) label += "-" + to_string(config.model.attention);
  if (config.engine != EngineKind::eager) label += "-" + to_string(config.engine);
  for (char& c : label) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  }
  return base + "." + label;
}

std::string main_usage() {
  std::string commands;
  const auto line = [&](const std::string& name, const std::string& summary) {
    std::string text = "  " + name + std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') + " ";
    for (char c : summary) text += c == '\n' ? std::string("\n") + std::string(13, ' ') : std::string(1, c);
    commands += text + "\n";
  };
  std::string last;
  for (const auto& d : experiment_registry()) {
    if (d.command.front() == last) continue;  // precision accumulate|autocast: one line
    last = d.command.front();
    line(last, last == "precision" ? "accumulation in low precision, and the dtypes autocast gives every tensor"
                                   : d.summary);
  }
  line("compare", "two run records side by side: B - A, B / A, kernel totals; exit 1 when B regressed\n"
                  "(--fail-if-slower 5%, --fail-if-more-memory 2%)");
  line("check", "evaluate a PyTorch state_dict checkpoint on token ids; optionally take one AdamW step");
  line("import", "read a torch.profiler trace or a CUDA memory snapshot of your own code");
  line("models", "list the model presets");
  line("version", "print the versions of stepscope and LibTorch");
  return "usage: stepscope-cli <command> [options]\n\ncommands:\n" + commands +
         "\nstepscope-cli <command> --help describes a command.\n";
}

std::string bench_usage() { return experiment_usage(*find_experiment("bench")); }


}  // namespace stepscope::cli
