#include "experiments/bench/bench_inputs.h"

#include <algorithm>

#include "core/config_error.h"
#include "experiments/common_inputs.h"
#include "schema/value_format.h"

namespace stepscope {

namespace {

using schema::InputField;
using schema::InputKind;

const char* const kCustomShape[] = {"d-model", "d-ff", "layers", "heads", "vocab"};

schema::InputSchema make_inputs() {
  const std::string presets = [] {
    std::string out;
    for (const auto& name : model_preset_names()) out += (out.empty() ? "" : ", ") + name;
    return out;
  }();
  std::vector<InputField> f;
  f.push_back(model_input("preset: " + presets, "small", true));
  const auto shape = [&](const char* key, const char* label, const char* help) {
    // The model's own check says what is too large ("d_model ... is too large").
    f.push_back({key, label, InputKind::integer, help, "", false, "model", "N"});
  };
  shape("d-model", "Width", "a custom model instead of --model: its width (with --layers and --heads)");
  shape("d-ff", "Feed-forward width", "its feed-forward width (default 4 x d-model)");
  shape("layers", "Layers", "its layers");
  shape("heads", "Heads", "its attention heads");
  shape("vocab", "Vocabulary", "its vocabulary (default 10000)");
  f.push_back({"context", "Context", InputKind::integer, "context length", "256", true, "run", "N"});
  f.push_back({"batch", "Batch", InputKind::integer, "batch size", "4", true, "run", "N"});
  f.push_back(precision_input("precision", "Precision", "fp32, bf16 or fp16 autocast with fp32 master weights",
                              "fp32", true));
  f.push_back({"mode", "Mode", InputKind::choice, "forward, forward-backward or train", "train", true, "run", "M"});
  f.back().choices = {"forward", "forward-backward", "train"};
  f.back().check = [](const std::string& t) { parse_step_mode(t); };
  f.push_back({"attention", "Attention", InputKind::choice,
               "naive (the reference's), sdpa (LibTorch 2.x) or flash", "naive", true, "run", "A"});
  f.back().choices = {"naive", "sdpa", "flash"};
  f.back().check = [](const std::string& t) { parse_attention_impl(t); };
  f.push_back({"engine", "Engine", InputKind::choice,
               "eager (the reference model op by op, as the seeds profile it) or fused (fused kernels,\n"
               "projections and optimizer, flash attention: the counterpart of torch.compile)",
               "eager", true, "run", "E"});
  f.back().choices = {"eager", "fused"};
  f.back().check = [](const std::string& t) { parse_engine_kind(t); };
  f.push_back(cuda_graphs_input());
  f.push_back({"check", "Check engines", InputKind::flag,
               "with --engine eager,fused: run both from the same weights and batch and report the largest\n"
               "relative difference of their step losses (max_loss_diff)",
               "", false, "run", ""});
  f.push_back(warmup_input("warmup", "Warm-up steps", "warm-up steps, not measured", "5"));
  f.push_back(measured_input("steps", "Measured steps", "measured steps", "10"));
  f.push_back(device_input());
  f.push_back(seed_input("seed of the weights and the random batch"));
  f.push_back({"peak-tflops", "Peak TFLOP/s", InputKind::number,
               "the device's peak for MFU when it is not in the built-in table", "", false, "run", "X"});
  f.push_back({"profile", "Profile", InputKind::choice,
               "kernels: CUDA kernel summaries per range (CUPTI) and a Perfetto trace, written\n"
               "beside --csv/--json as STEM.CONFIG.{kernels,categories,gpu_steps,cpu_ranges}.csv and\n"
               "STEM.CONFIG.trace.json; on a CPU, range timings only. memory: every allocation and free\n"
               "by category (parameter, gradient, optimizer state, activation, temporary, input, other):\n"
               "STEM.CONFIG.{memory_timeline,memory_peaks,largest_allocations,memory_categories}.csv.\n"
               "ops: LibTorch's operators per range with calls, total and self CPU time, grouped by input\n"
               "shapes, and on a GPU the kernels each launched: STEM.CONFIG.{operators,operator_kernels}.csv\n"
               "and STEM.CONFIG.trace.json. Combine: --profile kernels,ops,memory",
               "", true, "output", "P"});
  f.back().choices = {"kernels", "memory", "ops"};
  f.back().check = [](const std::string& t) {
    if (t != "kernels" && t != "memory" && t != "ops") {
      throw ConfigError("unknown profiler '" + t + "' (use kernels, memory, ops or a list such as kernels,ops)");
    }
  };
  f.push_back({"short-names", "Short kernel names", InputKind::flag,
               "kernel names with templates and arguments folded in kernels.csv", "", false, "output", ""});
  f.push_back({"memory-points", "Timeline rows", InputKind::integer, "rows of the timeline CSV, peaks kept", "2000",
               false, "output", "N"});
  f.back().min_integer = 10;
  f.push_back({"memory-events", "Allocator events", InputKind::integer, "allocator events recorded at most",
               "1000000", false, "output", "N"});
  f.back().min_integer = 1000;
  return {f};
}

std::vector<ModelConfig> models_of(const schema::InputValues& v) {
  bool custom = false;
  for (const char* key : kCustomShape) custom = custom || v.given(key);
  if (custom && v.given("model")) {
    throw ConfigError(
        "--model cannot be combined with --d-model/--d-ff/--layers/--heads/--vocab (pick a preset or describe a "
        "custom model)",
        "model");
  }
  if (!custom) {
    std::vector<ModelConfig> models;
    for (const auto& name : v.items("model")) models.push_back(model_preset(name));
    return models;
  }
  for (const char* required : {"d-model", "layers", "heads"}) {
    if (!v.given(required)) {
      throw ConfigError(std::string("a custom model needs --") + required + " (and --d-model, --layers, --heads)",
                        required);
    }
  }
  ModelConfig model;
  model.name = "custom";
  model.d_model = v.integer("d-model");
  model.num_layers = v.integer("layers");
  model.num_heads = v.integer("heads");
  model.d_ff = v.given("d-ff") ? v.integer("d-ff") : 4 * model.d_model;
  model.vocab_size = v.given("vocab") ? v.integer("vocab") : 10000;
  try {
    validate(model);
  } catch (const ConfigError& error) {
    std::string key = error.field();
    for (char& c : key) c = c == '_' ? '-' : c;
    throw ConfigError(std::string("custom model: ") + error.what(), key);
  }
  return {model};
}

template <class T, class Parse>
std::vector<T> parsed_items(const schema::InputValues& v, const std::string& key, Parse parse) {
  std::vector<T> out;
  for (const auto& item : v.items(key)) out.push_back(parse(item));
  return out;
}

}  // namespace

const schema::InputSchema& bench_inputs() {
  static const schema::InputSchema inputs = make_inputs();
  return inputs;
}

SweepSpec bench_spec(const schema::InputValues& v) {
  SweepSpec spec;
  spec.models = models_of(v);
  spec.contexts = v.integers("context");
  spec.batches = v.integers("batch");
  spec.precisions = parsed_items<Precision>(v, "precision", parse_precision);
  spec.modes = parsed_items<StepMode>(v, "mode", parse_step_mode);
  spec.attentions = parsed_items<AttentionImpl>(v, "attention", parse_attention_impl);
  spec.engines = parsed_items<EngineKind>(v, "engine", parse_engine_kind);
  spec.check_engines = v.flag("check");
  spec.base.record_losses = spec.check_engines;
  spec.base.cuda_graphs = v.text("cuda-graphs") == "on";
  // Each fused row is compared with an eager row measured before it.
  if (spec.check_engines) {
    std::stable_sort(spec.engines.begin(), spec.engines.end(),
                     [](EngineKind a, EngineKind b) { return a == EngineKind::eager && b != EngineKind::eager; });
  }
  if (spec.check_engines && spec.engines.size() < 2) {
    throw ConfigError("--check compares engines: give --engine eager,fused", "check");
  }
  BenchConfig& base = spec.base;
  base.warmup_steps = static_cast<int>(v.integer("warmup"));
  base.measured_steps = static_cast<int>(v.integer("steps"));
  base.device = parse_device(v.text("device"));
  base.seed = static_cast<uint64_t>(v.integer("seed"));
  if (v.given("peak-tflops")) base.peak_tflops = v.number("peak-tflops");
  for (const auto& profiler : v.items("profile")) {
    (profiler == "kernels" ? base.profile_kernels : profiler == "ops" ? base.profile_operators : base.profile_memory) =
        true;
  }
  base.memory_event_limit = v.integer("memory-events");
  if (v.flag("short-names") && !base.profile_kernels) {
    throw ConfigError("--short-names needs --profile kernels", "short-names");
  }
  if ((v.given("memory-points") || v.given("memory-events")) && !base.profile_memory) {
    throw ConfigError("--memory-points and --memory-events need --profile memory",
                      v.given("memory-points") ? "memory-points" : "memory-events");
  }
  return spec;
}

schema::InputValues bench_values(const SweepSpec& spec) {
  schema::InputValues v(bench_inputs());
  const bool custom = spec.models.size() == 1 && spec.models.front().name == "custom";
  if (custom) {
    const ModelConfig& m = spec.models.front();
    v.set("d-model", std::to_string(m.d_model));
    v.set("d-ff", std::to_string(m.d_ff));
    v.set("layers", std::to_string(m.num_layers));
    v.set("heads", std::to_string(m.num_heads));
    v.set("vocab", std::to_string(m.vocab_size));
  } else if (!spec.models.empty()) {
    v.set("model", schema::join_items(spec.models, [](const ModelConfig& m) { return m.name; }));
  }
  const auto number = [](int64_t n) { return std::to_string(n); };
  v.set("context", schema::join_items(spec.contexts, number));
  v.set("batch", schema::join_items(spec.batches, number));
  v.set("precision", schema::join_items(spec.precisions, [](Precision p) { return to_string(p); }));
  v.set("mode", schema::join_items(spec.modes, [](StepMode m) { return to_string(m); }));
  v.set("attention", schema::join_items(spec.attentions, [](AttentionImpl a) { return to_string(a); }));
  v.set("engine", schema::join_items(spec.engines, [](EngineKind e) { return to_string(e); }));
  if (spec.check_engines) v.set_flag("check", true);
  if (!spec.base.cuda_graphs) v.set("cuda-graphs", "off");
  const BenchConfig& base = spec.base;
  v.set("warmup", std::to_string(base.warmup_steps));
  v.set("steps", std::to_string(base.measured_steps));
  v.set("device", to_string(base.device));
  v.set("seed", std::to_string(base.seed));
  if (base.peak_tflops > 0) v.set("peak-tflops", schema::exact_number(base.peak_tflops));
  std::vector<std::string> profilers;
  if (base.profile_kernels) profilers.push_back("kernels");
  if (base.profile_operators) profilers.push_back("ops");
  if (base.profile_memory) profilers.push_back("memory");
  if (!profilers.empty()) v.set("profile", schema::join_items(profilers, [](const std::string& p) { return p; }));
  if (base.profile_memory) v.set("memory-events", std::to_string(base.memory_event_limit));
  return v;
}

schema::InputValues bench_values(const BenchConfig& config) {
  SweepSpec spec;
  spec.base = config;
  spec.models = {config.model};
  spec.contexts = {config.context};
  spec.batches = {config.batch};
  spec.precisions = {config.precision};
  spec.modes = {config.mode};
  spec.attentions = {config.model.attention};
  spec.engines = {config.engine};
  return bench_values(spec);
}

}  // namespace stepscope
