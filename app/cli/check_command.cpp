#include <cstdio>

#include <torch/torch.h>

#include "core/config_error.h"
#include "cli/cli_options.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "compat/torch_compat.h"
#include "experiments/memory_precheck.h"
#include "io/npy_file.h"
#include "io/state_dict_file.h"
#include "model/adamw.h"
#include "io/checkpoint.h"
#include "runners/memory_estimate.h"
#include "model/loss.h"
#include "runners/device_backend.h"

namespace stepscope::cli {

namespace {

// Token ids as int64 on `device`, checked against the vocabulary.
torch::Tensor load_token_ids(const std::string& option, const std::string& path, int64_t vocab,
                             const c10::Device& device) {
  at::Tensor ids;
  try {
    ids = read_npy_file(path);
  } catch (const NpyError& e) {  // a bad input file is bad input, as a bad flag: exit status 2
    throw CliError(option + ": " + e.what());
  }
  if (!c10::isIntegralType(ids.scalar_type(), /*includeBool=*/false)) {
    throw CliError(option + " " + path + ": token ids must be integers, got " +
                   std::string(c10::toString(ids.scalar_type())));
  }
  if (ids.dim() != 2) {
    throw CliError(option + " " + path + ": token ids must have shape (batch, seq), got " +
                   std::to_string(ids.dim()) + " dimension(s)");
  }
  if (ids.numel() == 0) throw CliError(option + " " + path + ": no token ids");
  const auto as_long = ids.to(torch::kInt64);
  const int64_t low = as_long.min().item<int64_t>();
  const int64_t high = as_long.max().item<int64_t>();
  if (low < 0 || high >= vocab) {
    throw CliError(option + " " + path + ": ids must lie in [0, " + std::to_string(vocab) + "), found " +
                   std::to_string(low) + ".." + std::to_string(high));
  }
  return as_long.to(device);
}

// What the checkpoint holds is input: a file that is not what it claims is exit status 2.
template <class F>
auto checkpoint_input(F read) -> decltype(read()) {
  try {
    return read();
  } catch (const CheckpointError& e) {
    throw CliError(std::string("--checkpoint: ") + e.what());
  }
}

int check(const CheckOptions& options, std::ostream& out) {
  const auto backend = make_device_backend(options.device);
  const StateDict state = checkpoint_input([&] { return load_state_dict_file(options.checkpoint); });
  ModelConfig config = checkpoint_input([&] { return infer_model_config(state, options.heads); });
  config.rope_theta = options.rope_theta;

  const auto tokens = load_token_ids("--tokens", options.tokens, config.vocab_size, backend->device());
  config = with_context(config, tokens.size(1));
  torch::Tensor targets;
  if (!options.targets.empty()) {
    targets = load_token_ids("--targets", options.targets, config.vocab_size, backend->device());
    if (!targets.sizes().equals(tokens.sizes())) {
      throw CliError("--targets has shape " + c10::str(targets.sizes()) + " but --tokens has " +
                     c10::str(tokens.sizes()));
    }
  }
  validate(config);
  // Tokens far longer than the model was made for need memory no machine has: said at once.
  BenchConfig run;
  run.model = config;
  run.batch = tokens.size(0);
  run.context = tokens.size(1);
  run.mode = options.adamw_out.empty() ? StepMode::forward : StepMode::train;
  refuse_if_clearly_too_large(estimate_memory(run).peak_bytes, backend->available_memory_bytes(), options.device,
                              "the model and its activations for " + c10::str(tokens.sizes()) + " tokens");

  TransformerLM model(config, torch::TensorOptions().dtype(torch::kFloat32).device(backend->device()));
  checkpoint_input([&] { load_state_dict(*model, state); });

  const bool step = !options.adamw_out.empty();
  torch::AutoGradMode grad_mode(step);
  const auto logits = model(tokens);
  if (targets.defined()) {
    const auto loss = mean_cross_entropy(logits, targets);
    char line[64];
    std::snprintf(line, sizeof line, "loss %.17g\n", loss.item<double>());
    out << line;
    if (step) {
      loss.backward();
      AdamW optimizer(model->parameters());
      optimizer.step();
      save_state_dict_file(model_state_dict(*model), options.adamw_out);
      out << "wrote " << options.adamw_out << " (after one AdamW step)\n";
    }
  }
  if (!options.logits_out.empty()) {
    write_npy_file(logits.detach().to(torch::kCPU, torch::kFloat32).contiguous(), options.logits_out);
    out << "wrote " << options.logits_out << " (float32 " << c10::str(logits.sizes()) << ")\n";
  }
  return kExitOk;
}

}  // namespace

int run_check_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CheckOptions options;
  try {
    options = parse_check_options(args);
    if (options.help) {
      out << check_usage();
      return kExitOk;
    }
    check_outputs({{"--out", options.logits_out}, {"--adamw-step-out", options.adamw_out}},
                  {{"--checkpoint", options.checkpoint}, {"--tokens", options.tokens}, {"--targets", options.targets}});
    try {
      check_device(options.device);  // before any tensor moves there
    } catch (const ConfigError& error) {
      throw CliError("--device: " + std::string(error.what()));
    }
  } catch (const CliError& error) {
    err << "stepscope-cli check: error: " << error.what() << '\n';
    return kExitUsage;
  }
  try {
    return check(options, out);
  } catch (const CliError& error) {
    err << "stepscope-cli check: error: " << error.what() << '\n';
    return kExitUsage;
  } catch (const ConfigError& error) {
    err << "stepscope-cli check: error: " << error.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& error) {
    err << "stepscope-cli check: error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
}

}  // namespace stepscope::cli
