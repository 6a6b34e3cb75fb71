#include "experiments/attention/attention_inputs.h"

#include "experiments/common_inputs.h"

namespace stepscope {

namespace {

using schema::InputField;
using schema::InputKind;

schema::InputSchema make_inputs() {
  std::vector<InputField> f;
  f.push_back({"impl", "Implementations", InputKind::choice, "naive, sdpa (LibTorch 2.x), flash", "naive,sdpa,flash",
               true, "run", "I"});
  f.back().choices = {"naive", "sdpa", "flash"};
  f.back().check = [](const std::string& t) { parse_attention_impl(t); };
  f.back().default_note = "naive,flash, and sdpa where available";
  f.push_back({"batch", "Batch", InputKind::integer, "batch size", "8", false, "run", "N"});
  f.push_back({"heads", "Heads", InputKind::integer, "heads (1: inputs (batch, seq, d), as the seeds' sweep)", "1",
               false, "run", "N"});
  f.push_back({"d", "Head dims", InputKind::integer, "head dim", "16,32,64,128", true, "run", "N"});
  f.push_back({"seq", "Sequence lengths", InputKind::integer, "sequence length", "256,1024,4096,8192,16384", true,
               "run", "N"});
  f.push_back(precision_input("precision", "Precisions", "fp32, bf16 or fp16 inputs", "fp32", true));
  f.push_back({"causal", "Causal", InputKind::flag, "top-left causal mask (query i sees keys 0..i)", "", false, "run",
               ""});
  f.push_back(warmup_input("warmup", "Warm-up passes", "warm-up passes, not measured", "5"));
  f.push_back(measured_input("steps", "Measured passes", "measured forward and backward passes", "100"));
  f.push_back({"rounds", "Rounds", InputKind::integer,
               "split the passes into N rounds, the implementations of a shape taking\n"
               "turns round by round, so that a drift of the machine falls on all of them\n"
               "alike; auto: 5 when comparing implementations, else 1; at most --steps",
               "", false, "run", "N"});
  f.back().max_integer = kMaxSteps;
  f.back().default_note = "auto";
  f.push_back(device_input());
  f.push_back(seed_input("seed of the inputs"));
  return {f};
}

}  // namespace

const schema::InputSchema& attention_inputs() {
  static const schema::InputSchema inputs = make_inputs();
  return inputs;
}

AttentionSweepSpec attention_spec(const schema::InputValues& v, bool has_sdpa) {
  AttentionSweepSpec spec;
  spec.impls.clear();
  for (const auto& item : v.items("impl")) {
    const AttentionImpl impl = parse_attention_impl(item);
    if (impl == AttentionImpl::sdpa && !has_sdpa && !v.given("impl")) continue;  // the default, where it exists
    spec.impls.push_back(impl);
  }
  AttentionConfig& base = spec.base;
  base.batch = v.integer("batch");
  base.heads = v.integer("heads");
  spec.head_dims = v.integers("d");
  spec.seqs = v.integers("seq");
  spec.precisions.clear();
  for (const auto& item : v.items("precision")) spec.precisions.push_back(parse_precision(item));
  base.causal = v.flag("causal");
  base.warmup_steps = static_cast<int>(v.integer("warmup"));
  base.measured_steps = static_cast<int>(v.integer("steps"));
  spec.rounds = v.given("rounds") ? static_cast<int>(v.integer("rounds")) : 0;
  base.device = parse_device(v.text("device"));
  base.seed = static_cast<uint64_t>(v.integer("seed"));
  return spec;
}

schema::InputValues attention_values(const AttentionSweepSpec& spec) {
  schema::InputValues v(attention_inputs());
  const auto number = [](int64_t n) { return std::to_string(n); };
  v.set("impl", schema::join_items(spec.impls, [](AttentionImpl i) { return to_string(i); }));
  v.set("batch", number(spec.base.batch));
  v.set("heads", number(spec.base.heads));
  v.set("d", schema::join_items(spec.head_dims, number));
  v.set("seq", schema::join_items(spec.seqs, number));
  v.set("precision", schema::join_items(spec.precisions, [](Precision p) { return to_string(p); }));
  v.set_flag("causal", spec.base.causal);
  v.set("warmup", number(spec.base.warmup_steps));
  v.set("steps", number(spec.base.measured_steps));
  if (spec.rounds > 0) v.set("rounds", number(spec.rounds));
  v.set("device", to_string(spec.base.device));
  v.set("seed", std::to_string(spec.base.seed));
  return v;
}

}  // namespace stepscope
