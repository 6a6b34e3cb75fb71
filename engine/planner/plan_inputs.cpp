#include "planner/plan_inputs.h"

#include "experiments/common_inputs.h"
#include "schema/value_format.h"

namespace stepscope::planner {

namespace {

using schema::InputField;
using schema::InputKind;

const char* const kShape[] = {"d-model", "d-ff", "layers", "heads", "vocab"};

schema::InputSchema make_inputs() {
  const PlanRequest defaults;
  std::vector<InputField> f;
  f.push_back({"model", "Model", InputKind::choice,
               "a preset (tiny, mini, small, medium, large, xl, 2.7B), xxl-ffn (the seeds' XXL:\n"
               "d_model 16384, d_ff 53248, 126 blocks of two linear layers) or custom",
               "xxl-ffn", false, "model", "NAME"});
  f.back().choices = plan_model_names();
  f.back().check = [](const std::string& t) { plan_model(t); };
  f.push_back({"blocks", "Blocks", InputKind::choice, "transformer or ffn-only (custom shapes)", "", false, "model", "B"});
  f.back().choices = {"transformer", "ffn-only"};
  f.back().check = [](const std::string& t) { parse_block_kind(t); };
  for (const char* key : kShape) {
    f.push_back({key, key, InputKind::integer, "change the model's shape (then custom)", "", false, "model", "N"});
  }
  f[2].label = "Width";
  f[3].label = "Feed-forward width";
  f[4].label = "Layers";
  f[5].label = "Heads";
  f[6].label = "Vocabulary";
  const auto precision = [&](const char* key, const char* label, Precision fallback) {
    f.push_back(precision_input(key, label, "fp32, bf16 or fp16", to_string(fallback), false));
    f.back().group = "precision";
  };
  const PlanPrecisions& p = defaults.precisions;
  precision("weights", "Master weights", p.master_weights);
  precision("grads", "Gradients", p.gradients);
  precision("optimizer-state", "Optimizer state", p.optimizer_state);
  precision("activations", "Activations", p.activations);
  precision("comm", "Communication", p.communication);
  const auto layout = [&](const char* key, const char* label, const char* help) {
    f.push_back({key, label, InputKind::integer, help, "1", false, "layout", "N"});
  };
  layout("dp", "Data parallel", "data-parallel size");
  layout("fsdp", "FSDP", "FSDP size");
  layout("tp", "Tensor parallel", "tensor-parallel size");
  f.push_back({"activation-fraction", "FSDP activation share", InputKind::number,
               "the share of activations FSDP shards (0.5: every second layer)",
               schema::exact_number(defaults.layout.fsdp_activation_fraction), false, "layout", "F"});
  f.push_back({"zero1", "ZeRO-1", InputKind::flag, "the optimizer state split over the data-parallel ranks too", "",
               false, "layout", ""});
  f.push_back({"batch", "Batch per device", InputKind::integer, "sequences per device", std::to_string(defaults.batch),
               false, "layout", "N"});
  f.push_back({"context", "Context", InputKind::integer, "tokens per sequence (1: per token)",
               std::to_string(defaults.context), false, "layout", "N"});
  f.push_back({"device-memory", "Device memory", InputKind::size, "e.g. 95GB (TPU v5p), 80GiB", "95GB", false,
               "layout", "S"});
  const ScalingBookInputs& sb = defaults.scaling_book;
  const auto hardware = [&](const char* key, const char* label, const char* help, const std::string& fallback,
                            InputKind kind) {
    f.push_back({key, label, kind, help, fallback, false, "hardware", kind == InputKind::integer ? "N" : "X"});
  };
  hardware("w-ici", "ICI bandwidth (B/s)", "the Scaling Book's ICI bandwidth, bytes/s (TPU v5p)",
           schema::exact_number(sb.w_ici_Bps), InputKind::number);
  hardware("c-flops", "FLOP/s per chip", "FLOPs/s per chip (TPU v5p)", schema::exact_number(sb.c_flops),
           InputKind::number);
  hardware("m-x", "Mesh axes of X", "mesh axes the FSDP dimension X spans", schema::exact_number(sb.m_x),
           InputKind::number);
  hardware("m-y", "Mesh axes of Y", "mesh axes the TP dimension Y spans", schema::exact_number(sb.m_y),
           InputKind::number);
  hardware("x", "X (FSDP)", "the FSDP dimension", std::to_string(sb.x), InputKind::integer);
  hardware("y", "Y (TP)", "the TP dimension", std::to_string(sb.y), InputKind::integer);
  f.push_back({"allreduce", "All-reduce run", InputKind::path,
               "a run record of `stepscope-cli collectives --json F`: fits time = o + bytes/w\n"
               "to its all-reduce rows and adds the DDP bucket optimum",
               "", false, "measured", "F"});
  return {f};
}

}  // namespace

const schema::InputSchema& plan_inputs() {
  static const schema::InputSchema inputs = make_inputs();
  return inputs;
}

PlanRequest plan_request(const schema::InputValues& v) {
  PlanRequest r;
  r.model = plan_model(v.text("model"));
  if (v.given("blocks")) {
    r.model.blocks = parse_block_kind(v.text("blocks"));
    r.model.name = "custom";
  }
  int64_t* shape[] = {&r.model.d_model, &r.model.d_ff, &r.model.layers, &r.model.heads, &r.model.vocab};
  for (size_t i = 0; i < std::size(kShape); ++i) {
    if (!v.given(kShape[i])) continue;
    *shape[i] = v.integer(kShape[i]);
    r.model.name = "custom";
  }
  PlanPrecisions& p = r.precisions;
  p.master_weights = parse_precision(v.text("weights"));
  p.gradients = parse_precision(v.text("grads"));
  p.optimizer_state = parse_precision(v.text("optimizer-state"));
  p.activations = parse_precision(v.text("activations"));
  p.communication = parse_precision(v.text("comm"));
  r.layout.data_parallel = v.integer("dp");
  r.layout.fsdp = v.integer("fsdp");
  r.layout.tensor_parallel = v.integer("tp");
  r.layout.fsdp_activation_fraction = v.number("activation-fraction");
  r.layout.shard_optimizer_over_dp = v.flag("zero1");
  r.batch = v.integer("batch");
  r.context = v.integer("context");
  r.device_memory_bytes = static_cast<double>(v.bytes("device-memory"));
  ScalingBookInputs& sb = r.scaling_book;
  sb.w_ici_Bps = v.number("w-ici");
  sb.c_flops = v.number("c-flops");
  sb.m_x = v.number("m-x");
  sb.m_y = v.number("m-y");
  sb.x = v.integer("x");
  sb.y = v.integer("y");
  return r;
}

}  // namespace stepscope::planner
