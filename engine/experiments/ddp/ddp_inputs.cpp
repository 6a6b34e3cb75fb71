#include "experiments/ddp/ddp_inputs.h"

#include "experiments/common_inputs.h"
#include "schema/value_format.h"

namespace stepscope {

namespace {

using schema::InputField;
using schema::InputKind;

schema::InputSchema make_inputs() {
  std::vector<InputField> f;
  f.push_back({"variant", "Variants", InputKind::choice, "naive, flat, overlap, bucketed", "naive,flat,overlap,bucketed",
               true, "run", "V"});
  f.back().choices = {"naive", "flat", "overlap", "bucketed"};
  f.back().check = [](const std::string& t) { distributed::parse_ddp_variant(t); };
  f.back().default_note = "all four";
  f.push_back({"bucket-mb", "Bucket sizes (MiB)", InputKind::number, "bucket sizes in MiB, bucketed only", "1,10,100",
               true, "run", "M"});
  f.back().unit = "MiB";
  f.push_back({"optimizer", "Optimizer", InputKind::choice,
               "adamw (state on every rank), sharded (whole parameters per rank, owners\n"
               "broadcast) or zero1 (gradients reduce-scattered, shards all-gathered)",
               "adamw", true, "run", "O"});
  f.back().choices = {"adamw", "sharded", "zero1"};
  f.back().check = [](const std::string& t) { distributed::parse_optimizer_sharding(t); };
  f.push_back({"zero1-gather", "ZeRO-1 gathers", InputKind::choice,
               "when zero1 all-gathers the updated parameters: step-end (batch by\n"
               "batch under the next batch's update) or next-forward (each before the\n"
               "first layer that uses it); zero1 rows only",
               "step-end", true, "run", "G"});
  f.back().choices = {"step-end", "next-forward"};
  f.back().check = [](const std::string& t) { distributed::parse_zero1_gathers(t); };
  f.push_back({"engine", "Engine", InputKind::choice,
               "eager (the reference model op by op under autocast) or fused (fused kernels and\n"
               "projections, one flat parameter buffer; FusedAdamW where the state is not sharded)",
               "eager", true, "run", "E"});
  f.back().choices = {"eager", "fused"};
  f.back().check = [](const std::string& t) { parse_engine_kind(t); };
  f.push_back(cuda_graphs_input());
  f.push_back({"sm-carveout", "SMs left to NCCL", InputKind::integer,
               "GPUs: streaming multiprocessors the matmuls leave to the collectives running\n"
               "beside them (cuBLASLt plans each GEMM for the rest, so it keeps full waves next\n"
               "to NCCL's kernels); pair with NCCL_MAX_CTAS=N. 0: none",
               "0", false, "run", "N"});
  f.back().min_integer = 0;
  f.back().max_integer = kMaxSmCarveout;
  f.push_back(precision_input("reduce-dtype", "Gradient reduce type",
                              "the type gradients are reduced in: fp32, or bf16 (cast and divided by the\n"
                              "ranks on the way in, summed in bf16, cast back, as PyTorch's\n"
                              "bf16_compress_hook: half the bytes)",
                              "fp32", false, {"fp32", "bf16"}, "gradients are reduced in fp32 or bf16"));
  f.push_back(nproc_input());
  f.push_back(backend_input());
  f.push_back(model_input("preset: small, medium, large, xl, 2.7B, tiny, mini", "tiny", false));
  f.push_back({"context", "Context", InputKind::integer, "tokens per sequence", "256", false, "model", "N"});
  f.push_back({"batch", "Batch per rank", InputKind::integer, "sequences per rank", "4", false, "model", "N"});
  f.push_back(precision_input("precision", "Precision", "fp32 or bf16 (autocast, fp32 master weights)", "fp32", false,
                              {"fp32", "bf16"}, "the DDP experiments run fp32 or bf16 (autocast), not fp16"));
  f.push_back(warmup_input("warmup", "Warm-up steps", "warm-up steps", "1"));
  f.push_back(measured_input("steps", "Measured steps", "measured steps", "5"));
  f.push_back(seed_input("weights and data"));
  f.push_back(rank_device_input());
  f.push_back({"check", "Check against one process", InputKind::flag,
               "then train one process on the whole global batches in-process and report\n"
               "the largest parameter difference (fp32 on the CPU must be at most 1e-5)",
               "", false, "run", ""});
  f.push_back({"profile-memory", "Profile memory", InputKind::flag,
               "record each rank's allocations: live bytes per category (parameters,\n"
               "gradients, optimizer state, activations, ...) after initialisation and right\n"
               "before and after the last measured step's optimizer step, in F's stem +\n"
               ".memory.csv (without a --csv file: stepscope-ddp.memory.csv)",
               "", false, "output", ""});
  f.push_back(timeout_input());
  f.push_back({"trace", "Trace file", InputKind::path, "the overlap pictures as a Perfetto/Chrome trace, a process per rank",
               "", false, "output", "F"});
  return {f};
}

}  // namespace

const schema::InputSchema& ddp_inputs() {
  static const schema::InputSchema inputs = make_inputs();
  return inputs;
}

DdpSweepSpec ddp_spec(const schema::InputValues& v) {
  DdpSweepSpec spec;
  spec.variants.clear();
  for (const auto& item : v.items("variant")) spec.variants.push_back(distributed::parse_ddp_variant(item));
  spec.bucket_mbs = v.numbers("bucket-mb");
  spec.optimizers.clear();
  for (const auto& item : v.items("optimizer")) spec.optimizers.push_back(distributed::parse_optimizer_sharding(item));
  spec.zero1_gathers.clear();
  for (const auto& item : v.items("zero1-gather")) spec.zero1_gathers.push_back(distributed::parse_zero1_gathers(item));
  spec.engines.clear();
  for (const auto& item : v.items("engine")) spec.engines.push_back(parse_engine_kind(item));
  DdpConfig& base = spec.base;
  base.device = parse_device(v.text("device"));
  base.backend = backend_of(v.given("backend") ? v.text("backend") : "", base.device);
  base.model = model_preset(v.text("model"));
  base.context = v.integer("context");
  base.batch = v.integer("batch");
  base.precision = parse_precision(v.text("precision"));
  base.reduce_dtype = parse_precision(v.text("reduce-dtype"));
  base.warmup_steps = static_cast<int>(v.integer("warmup"));
  base.measured_steps = static_cast<int>(v.integer("steps"));
  base.seed = static_cast<uint64_t>(v.integer("seed"));
  base.check = v.flag("check");
  base.cuda_graphs = v.text("cuda-graphs") == "on";
  base.sm_carveout = static_cast<int>(v.integer("sm-carveout"));
  base.profile_memory = v.flag("profile-memory");
  return spec;
}

schema::InputValues ddp_values(const DdpSweepSpec& spec) {
  schema::InputValues v(ddp_inputs());
  v.set("variant", schema::join_items(spec.variants, [](distributed::DdpVariant x) { return distributed::to_string(x); }));
  v.set("bucket-mb", schema::join_items(spec.bucket_mbs, [](double mb) { return schema::exact_number(mb); }));
  v.set("optimizer",
        schema::join_items(spec.optimizers, [](distributed::OptimizerSharding x) { return distributed::to_string(x); }));
  v.set("zero1-gather",
        schema::join_items(spec.zero1_gathers, [](distributed::Zero1Gathers x) { return distributed::to_string(x); }));
  v.set("engine", schema::join_items(spec.engines, [](EngineKind e) { return to_string(e); }));
  const DdpConfig& b = spec.base;
  v.set("reduce-dtype", to_string(b.reduce_dtype));
  v.set("backend", to_string(b.backend));
  v.set("model", b.model.name);
  v.set("context", std::to_string(b.context));
  v.set("batch", std::to_string(b.batch));
  v.set("precision", to_string(b.precision));
  v.set("warmup", std::to_string(b.warmup_steps));
  v.set("steps", std::to_string(b.measured_steps));
  v.set("seed", std::to_string(b.seed));
  v.set("device", to_string(b.device));
  v.set_flag("check", b.check);
  if (!b.cuda_graphs) v.set("cuda-graphs", "off");
  v.set("sm-carveout", std::to_string(b.sm_carveout));
  v.set_flag("profile-memory", b.profile_memory);
  return v;
}

}  // namespace stepscope
