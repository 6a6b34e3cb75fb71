#include "cli/cli_options.h"

#include "cli/option_reader.h"
#include "io/output_file.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace stepscope::cli {

namespace {

std::vector<ModelConfig> parse_models(const OptionReader& options) {
  const bool custom = options.has("d-model") || options.has("d-ff") || options.has("layers") ||
                      options.has("heads") || options.has("vocab");
  if (custom && options.has("model")) {
    throw CliError("--model cannot be combined with --d-model/--d-ff/--layers/--heads/--vocab (pick a preset or "
                   "describe a custom model)");
  }
  if (!custom) {
    std::vector<ModelConfig> models;
    for (const auto& name : split_list("model", options.get("model", "small"))) {
      models.push_back(parse_with("model", name, model_preset));
    }
    return models;
  }
  for (const char* required : {"d-model", "layers", "heads"}) {
    if (!options.has(required)) {
      throw CliError(std::string("a custom model needs --") + required + " (and --d-model, --layers, --heads)");
    }
  }
  ModelConfig model;
  model.name = "custom";
  model.d_model = parse_integer("d-model", options.get("d-model"), 1);
  model.num_layers = parse_integer("layers", options.get("layers"), 1);
  model.num_heads = parse_integer("heads", options.get("heads"), 1);
  model.d_ff = options.has("d-ff") ? parse_integer("d-ff", options.get("d-ff"), 1) : 4 * model.d_model;
  model.vocab_size = parse_integer("vocab", options.get("vocab", "10000"), 1);
  try {
    validate(model);
  } catch (const ConfigError& error) {
    throw CliError(std::string("custom model: ") + error.what());
  }
  return {model};
}

}  // namespace

BenchOptions parse_bench_options(const std::vector<std::string>& args) {
  const OptionReader options("bench", args,
                             {"model", "d-model", "d-ff", "layers", "heads", "vocab", "context", "batch",
                              "precision", "mode", "attention", "warmup", "steps", "device", "csv", "json", "seed",
                              "peak-tflops", "profile", "memory-points", "memory-events"},
                             {"help", "quiet", "short-names"});
  BenchOptions result;
  result.help = options.has("help");
  if (result.help) return result;
  result.quiet = options.has("quiet");
  result.short_kernel_names = options.has("short-names");
  auto& spec = result.spec;
  spec.models = parse_models(options);
  spec.contexts = parse_integer_list("context", options.get("context", "256"));
  spec.batches = parse_integer_list("batch", options.get("batch", "4"));
  spec.precisions.clear();
  for (const auto& item : split_list("precision", options.get("precision", "fp32"))) {
    spec.precisions.push_back(parse_with("precision", item, parse_precision));
  }
  spec.modes.clear();
  for (const auto& item : split_list("mode", options.get("mode", "train"))) {
    spec.modes.push_back(parse_with("mode", item, parse_step_mode));
  }
  spec.attentions.clear();
  for (const auto& item : split_list("attention", options.get("attention", "naive"))) {
    spec.attentions.push_back(parse_with("attention", item, parse_attention_impl));
  }
  auto& base = spec.base;
  const int64_t warmup = parse_integer("warmup", options.get("warmup", "5"), 0);
  const int64_t steps = parse_integer("steps", options.get("steps", "10"), 1);
  // Checked before narrowing to int: 4294967297 steps must not become 1.
  if (warmup > 1000000 || steps > 1000000) throw CliError("--warmup/--steps: at most 1000000 steps");
  base.warmup_steps = static_cast<int>(warmup);
  base.measured_steps = static_cast<int>(steps);
  base.device = options.get("device", "cpu");
  base.seed = static_cast<uint64_t>(parse_integer("seed", options.get("seed", "0"), 0));
  if (options.has("peak-tflops")) base.peak_tflops = parse_positive_number("peak-tflops", options.get("peak-tflops"));
  result.csv_path = options.get("csv");
  result.json_path = options.get("json");
  if (options.has("memory-points")) {
    result.memory_points = static_cast<size_t>(parse_integer("memory-points", options.get("memory-points"), 10));
  }
  if (options.has("memory-events")) {
    base.memory_event_limit = parse_integer("memory-events", options.get("memory-events"), 1000);
  }
  if (options.has("profile")) {
    for (const auto& profiler : split_list("profile", options.get("profile"))) {
      if (profiler == "kernels") {
        base.profile_kernels = true;
      } else if (profiler == "memory") {
        base.profile_memory = true;
      } else {
        throw CliError("--profile: unknown profiler '" + profiler + "' (use kernels, memory or kernels,memory)");
      }
    }
  }
  if (result.short_kernel_names && !base.profile_kernels) throw CliError("--short-names needs --profile kernels");
  if ((options.has("memory-points") || options.has("memory-events")) && !base.profile_memory) {
    throw CliError("--memory-points and --memory-events need --profile memory");
  }
  try {
    expand(spec);  // every configuration is checked before anything runs
  } catch (const ConfigError& error) {
    throw CliError(error.what());
  }
  return result;
}

CheckOptions parse_check_options(const std::vector<std::string>& args) {
  const OptionReader options("check", args,
                             {"checkpoint", "tokens", "targets", "out", "adamw-step-out", "heads", "rope-theta",
                              "device"},
                             {"help"});
  CheckOptions result;
  result.help = options.has("help");
  if (result.help) return result;
  for (const char* required : {"checkpoint", "tokens", "heads"}) {
    if (!options.has(required)) throw CliError(std::string("check needs --") + required);
  }
  result.checkpoint = options.get("checkpoint");
  result.tokens = options.get("tokens");
  result.targets = options.get("targets");
  result.logits_out = options.get("out");
  result.adamw_out = options.get("adamw-step-out");
  result.heads = parse_integer("heads", options.get("heads"), 1);
  if (options.has("rope-theta")) {
    result.rope_theta = parse_positive_number("rope-theta", options.get("rope-theta"));
    ModelConfig probe;  // the model's own rule, said before any file is read
    probe.rope_theta = result.rope_theta;
    try {
      validate(probe);
    } catch (const ConfigError& e) {
      throw CliError(std::string("--rope-theta: ") + e.what());
    }
  }
  result.device = options.get("device", "cpu");
  if (!result.adamw_out.empty() && result.targets.empty()) {
    throw CliError("--adamw-step-out needs --targets: the AdamW step follows the gradient of the loss");
  }
  return result;
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
  for (char& c : label) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  }
  return base + "." + label;
}

std::string main_usage() {
  return "usage: stepscope-cli <command> [options]\n"
         "\n"
         "commands:\n"
         "  bench      time forward / backward / optimizer steps of the reference Transformer (sweeps by comma lists)\n"
         "  attention  time naive, sdpa and flash attention forward and backward, checked against naive fp32\n"
         "  precision  accumulation in low precision, and the dtypes autocast gives every tensor\n"
         "  allreduce  time all-reduce, reduce-scatter, all-gather and broadcast over Gloo or NCCL (nccl-tests' table)\n"
         "  ddp        time data-parallel training steps: naive, flat, overlap and bucketed gradient all-reduce,\n"
         "             optimizer state on every rank or sharded (the seeds' design, ZeRO-1)\n"
         "  plan       memory per device, the FSDP size that fits, the compute-bound batch: every number with\n"
         "             its formula\n"
         "  check      evaluate a PyTorch state_dict checkpoint on token ids; optionally take one AdamW step\n"
         "  models     list the model presets\n"
         "  version    print the versions of stepscope and LibTorch\n"
         "\n"
         "stepscope-cli <command> --help describes a command.\n";
}

std::string bench_usage() {
  return "usage: stepscope-cli bench [options]\n"
         "\n"
         "Runs W warm-up steps, then N measured steps, synchronising after each, for every combination\n"
         "of the comma-separated values given. Progress goes to stderr, results to CSV.\n"
         "\n"
         "model:\n"
         "  --model NAME[,NAME...]     preset: small, medium, large, xl, 2.7B, tiny, mini (default small)\n"
         "  --d-model N --layers N --heads N [--d-ff N] [--vocab N]\n"
         "                             a custom model instead (d-ff defaults to 4 x d-model, vocab to 10000)\n"
         "run:\n"
         "  --context N[,N...]         context length (default 256)\n"
         "  --batch N[,N...]           batch size (default 4)\n"
         "  --precision P[,P...]       fp32, bf16 or fp16 autocast with fp32 master weights (default fp32)\n"
         "  --mode M[,M...]            forward, forward-backward or train (default train)\n"
         "  --attention A[,A...]       naive (the reference's), sdpa (LibTorch 2.x) or flash (default naive)\n"
         "  --warmup N                 warm-up steps, not measured (default 5)\n"
         "  --steps N                  measured steps (default 10)\n"
         "  --device D                 cpu, cuda or cuda:N (default cpu)\n"
         "  --seed N                   seed of the weights and the random batch (default 0)\n"
         "  --peak-tflops X            the device's peak for MFU when it is not in the built-in table\n"
         "output:\n"
         "  --csv FILE                 write the table to FILE (default: stdout); rewritten after every row\n"
         "  --json FILE                also write every step's times and the environment as JSON\n"
         "  --quiet                    no progress on stderr\n"
         "  --profile kernels          CUDA kernel summaries per range (CUPTI) and a Perfetto trace, written\n"
         "                             beside --csv/--json as STEM.CONFIG.{kernels,categories,gpu_steps,\n"
         "                             cpu_ranges}.csv and STEM.CONFIG.trace.json; on a CPU, range timings\n"
         "                             only\n"
         "  --short-names              kernel names with templates and arguments folded in kernels.csv\n"
         "  --profile memory           every allocation and free by category (parameter, gradient, optimizer\n"
         "                             state, activation, temporary, input, other): STEM.CONFIG.{memory_timeline,\n"
         "                             memory_peaks,largest_allocations,memory_categories}.csv (categories: the\n"
         "                             highest bytes beside the tensors' own, the rest is allocator rounding);\n"
         "                             combine: --profile kernels,memory\n"
         "  --memory-points N          rows of the timeline CSV, peaks kept (default 2000)\n"
         "  --memory-events N          allocator events recorded at most (default 1000000)\n"
         "\n"
         "A configuration that runs out of memory becomes a row with status OOM and the sweep goes on.\n"
         "Exit status: 0 when every row is ok or OOM, 1 when a row failed, 2 for bad options, 130 if interrupted.\n";
}

std::string check_usage() {
  return "usage: stepscope-cli check --checkpoint F --tokens T.npy --heads H [options]\n"
         "\n"
         "Loads a state_dict saved by the Python reference (torch.save(model.state_dict(), F)), reads the\n"
         "model's shape from its tensors, and runs it on int64 token ids of shape (batch, seq) in fp32.\n"
         "\n"
         "  --checkpoint F             the state_dict file (PyTorch >= 1.6 zip format)\n"
         "  --tokens T.npy             token ids, integer array of shape (batch, seq)\n"
         "  --heads H                  number of attention heads (not stored in a state_dict)\n"
         "  --targets Y.npy            target ids of the same shape: prints 'loss <value>'\n"
         "  --out LOGITS.npy           writes the logits as float32 (batch, seq, vocab)\n"
         "  --adamw-step-out CKPT      takes one AdamW step (lr 1e-3, betas 0.9/0.999, eps 1e-8, decay 0.01)\n"
         "                             on the loss and saves the updated state_dict (needs --targets)\n"
         "  --rope-theta X             RoPE base (default 10000)\n"
         "  --device D                 cpu, cuda or cuda:N (default cpu)\n";
}

}  // namespace stepscope::cli
