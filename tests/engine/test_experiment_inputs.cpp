// Every experiment's inputs are declared once: a spec goes to values, to a worker's argv and
// back to the same spec; the registry's declarations are whole; a run record keeps the inputs.
#include <gtest/gtest.h>

#include <set>

#include "experiments/attention/attention_inputs.h"
#include "experiments/bench/bench_inputs.h"
#include "experiments/collectives/collective_inputs.h"
#include "experiments/ddp/ddp_inputs.h"
#include "registry/experiment_registry.h"
#include "experiments/precision/precision_inputs.h"
#include "io/run_record_json.h"
#include "schema/input_arguments.h"

namespace stepscope {
namespace {

// What a worker process would parse from the argv the app gives it.
schema::InputValues through_argv(const schema::InputValues& values) {
  const auto args = schema::to_arguments(values);
  return schema::parse_arguments(values.schema(), "test", args).values;
}

TEST(ExperimentInputs, BenchSpecThroughArgv) {
  SweepSpec spec;
  spec.models = {model_preset("tiny"), model_preset("mini")};
  spec.contexts = {32, 64};
  spec.batches = {2};
  spec.precisions = {Precision::bf16, Precision::fp32};
  spec.modes = {StepMode::forward, StepMode::train};
  spec.attentions = {AttentionImpl::naive, AttentionImpl::flash};
  spec.base.warmup_steps = 0;
  spec.base.measured_steps = 3;
  spec.base.device = Device{DeviceKind::cuda, 1};
  spec.base.seed = 7;
  spec.base.peak_tflops = 989.5;
  spec.base.profile_kernels = true;
  spec.base.profile_memory = true;
  spec.base.profile_operators = true;
  spec.base.memory_event_limit = 5000;
  const schema::InputValues values = bench_values(spec);
  EXPECT_EQ(values.text("device"), "cuda:1");
  EXPECT_EQ(values.text("profile"), "kernels,ops,memory");
  const schema::InputValues back = through_argv(values);
  EXPECT_EQ(back, values);
  const SweepSpec again = bench_spec(back);
  ASSERT_EQ(again.models.size(), 2u);
  EXPECT_EQ(again.models[1].name, "mini");
  EXPECT_EQ(again.contexts, spec.contexts);
  EXPECT_EQ(again.batches, spec.batches);
  EXPECT_EQ(again.precisions, spec.precisions);
  EXPECT_EQ(again.modes, spec.modes);
  EXPECT_EQ(again.attentions, spec.attentions);
  EXPECT_EQ(again.base.warmup_steps, 0);
  EXPECT_EQ(again.base.measured_steps, 3);
  EXPECT_EQ(again.base.device, (Device{DeviceKind::cuda, 1}));
  EXPECT_EQ(again.base.seed, 7u);
  EXPECT_DOUBLE_EQ(again.base.peak_tflops, 989.5);
  EXPECT_TRUE(again.base.profile_kernels && again.base.profile_memory && again.base.profile_operators);
  EXPECT_EQ(again.base.memory_event_limit, 5000);
}

TEST(ExperimentInputs, BenchCustomModelThroughArgv) {
  SweepSpec spec;
  ModelConfig m;
  m.name = "custom";
  m.d_model = 128, m.d_ff = 300, m.num_layers = 3, m.num_heads = 4, m.vocab_size = 500;
  spec.models = {m};
  const SweepSpec again = bench_spec(through_argv(bench_values(spec)));
  ASSERT_EQ(again.models.size(), 1u);
  const ModelConfig& a = again.models[0];
  EXPECT_EQ(a.name, "custom");
  EXPECT_EQ(std::vector<int64_t>({a.d_model, a.d_ff, a.num_layers, a.num_heads, a.vocab_size}),
            std::vector<int64_t>({128, 300, 3, 4, 500}));
}

TEST(ExperimentInputs, AttentionSpecThroughArgv) {
  AttentionSweepSpec spec;
  spec.impls = {AttentionImpl::flash, AttentionImpl::naive};
  spec.base.batch = 3;
  spec.base.heads = 2;
  spec.head_dims = {64};
  spec.seqs = {128, 4096};
  spec.precisions = {Precision::bf16};
  spec.base.causal = true;
  spec.base.warmup_steps = 2;
  spec.base.measured_steps = 20;
  spec.rounds = 4;
  spec.base.device = Device{DeviceKind::cuda, -1};
  spec.base.seed = 3;
  const schema::InputValues values = attention_values(spec);
  EXPECT_EQ(values.text("device"), "cuda");  // the current GPU, as typed: no index added
  EXPECT_EQ(through_argv(values), values);
  const AttentionSweepSpec again = attention_spec(through_argv(values), false);
  EXPECT_EQ(again.impls, spec.impls);
  EXPECT_EQ(again.base.batch, 3);
  EXPECT_EQ(again.base.heads, 2);
  EXPECT_EQ(again.head_dims, spec.head_dims);
  EXPECT_EQ(again.seqs, spec.seqs);
  EXPECT_EQ(again.precisions, spec.precisions);
  EXPECT_TRUE(again.base.causal);
  EXPECT_EQ(again.base.warmup_steps, 2);
  EXPECT_EQ(again.base.measured_steps, 20);
  EXPECT_EQ(again.rounds, 4);
  EXPECT_EQ(again.base.device, (Device{DeviceKind::cuda, -1}));
  EXPECT_EQ(again.base.seed, 3u);
}

TEST(ExperimentInputs, AttentionDefaultImplementationsFollowTheBuild) {
  const schema::InputValues none(attention_inputs());
  EXPECT_EQ(attention_spec(none, true).impls,
            (std::vector<AttentionImpl>{AttentionImpl::naive, AttentionImpl::sdpa, AttentionImpl::flash}));
  EXPECT_EQ(attention_spec(none, false).impls, (std::vector<AttentionImpl>{AttentionImpl::naive, AttentionImpl::flash}));
}

TEST(ExperimentInputs, AutocastRequestThroughArgv) {
  precision::AutocastRequest request;
  request.model = "tiny";
  request.precision = Precision::fp16;
  request.device = Device{DeviceKind::cuda, 0};
  request.batch = 2;
  request.context = 8;
  request.seed = 11;
  const schema::InputValues values = precision::autocast_values(request);
  EXPECT_EQ(through_argv(values), values);
  const precision::AutocastRequest again = precision::autocast_request(through_argv(values));
  EXPECT_EQ(again.model, "tiny");
  EXPECT_EQ(again.precision, Precision::fp16);
  EXPECT_EQ(again.device, (Device{DeviceKind::cuda, 0}));
  EXPECT_EQ(again.batch, 2);
  EXPECT_EQ(again.context, 8);
  EXPECT_EQ(again.seed, 11u);
}

TEST(ExperimentInputs, CollectiveSpecThroughArgv) {
  CollectiveSweepSpec spec;
  spec.base.backend = CommBackend::nccl;
  spec.base.device = Device{DeviceKind::cuda, -1};
  spec.ops = {CollectiveOp::reduce_scatter, CollectiveOp::broadcast};
  spec.sizes_bytes = {4096, 1 << 20};
  spec.dtypes = {Precision::bf16};
  spec.base.warmup_iters = 1;
  spec.base.iters = 7;
  const schema::InputValues values = collective_values(spec);
  EXPECT_EQ(through_argv(values), values);
  const CollectiveSweepSpec again = collective_spec(through_argv(values));
  EXPECT_EQ(again.base.backend, CommBackend::nccl);
  EXPECT_EQ(again.base.device, (Device{DeviceKind::cuda, -1}));
  EXPECT_EQ(again.ops, spec.ops);
  EXPECT_EQ(again.sizes_bytes, spec.sizes_bytes);
  EXPECT_EQ(again.dtypes, spec.dtypes);
  EXPECT_EQ(again.base.warmup_iters, 1);
  EXPECT_EQ(again.base.iters, 7);
}

TEST(ExperimentInputs, DdpSpecThroughArgv) {
  DdpSweepSpec spec;
  spec.variants = {distributed::DdpVariant::bucketed, distributed::DdpVariant::flat};
  spec.bucket_mbs = {0.5, 25};
  spec.optimizers = {distributed::OptimizerSharding::zero1, distributed::OptimizerSharding::none};
  spec.zero1_gathers = {distributed::Zero1Gathers::next_forward};
  spec.engines = {EngineKind::fused, EngineKind::eager};
  DdpConfig& b = spec.base;
  b.reduce_dtype = Precision::bf16;
  b.cuda_graphs = false;
  b.backend = CommBackend::gloo;
  b.model = model_preset("mini");
  b.context = 32;
  b.batch = 3;
  b.precision = Precision::bf16;
  b.warmup_steps = 0;
  b.measured_steps = 2;
  b.seed = 5;
  b.device = Device{};
  b.check = true;
  b.profile_memory = true;
  b.sm_carveout = 20;
  const schema::InputValues values = ddp_values(spec);
  EXPECT_EQ(through_argv(values), values);
  const DdpSweepSpec again = ddp_spec(through_argv(values));
  EXPECT_EQ(again.variants, spec.variants);
  EXPECT_EQ(again.bucket_mbs, spec.bucket_mbs);
  EXPECT_EQ(again.optimizers, spec.optimizers);
  EXPECT_EQ(again.zero1_gathers, spec.zero1_gathers);
  EXPECT_EQ(again.engines, spec.engines);
  EXPECT_EQ(again.base.reduce_dtype, Precision::bf16);
  EXPECT_FALSE(again.base.cuda_graphs);
  EXPECT_TRUE(ddp_spec(schema::InputValues(ddp_inputs())).base.cuda_graphs) << "on by default";
  EXPECT_EQ(again.base.sm_carveout, 20);
  EXPECT_EQ(ddp_spec(schema::InputValues(ddp_inputs())).base.sm_carveout, 0) << "none by default";
  EXPECT_EQ(again.base.model.name, "mini");
  EXPECT_EQ(again.base.context, 32);
  EXPECT_EQ(again.base.batch, 3);
  EXPECT_EQ(again.base.precision, Precision::bf16);
  EXPECT_EQ(again.base.warmup_steps, 0);
  EXPECT_EQ(again.base.measured_steps, 2);
  EXPECT_EQ(again.base.seed, 5u);
  EXPECT_TRUE(again.base.check);
  EXPECT_TRUE(again.base.profile_memory);
}

// Every declaration is whole: unique ids and keys, a label and help for what people see, and
// defaults the field's own check accepts.
TEST(ExperimentRegistry, EveryDescriptorIsWhole) {
  std::set<std::string> ids;
  for (const auto& d : experiment_registry()) {
    SCOPED_TRACE(d.id);
    EXPECT_TRUE(ids.insert(d.id).second);
    EXPECT_FALSE(d.command.empty());
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.summary.empty());
    EXPECT_FALSE(d.tables.empty());
    EXPECT_TRUE(d.runs_as_ranks || d.run) << "needs a run or a job of ranks";
    ASSERT_NE(d.inputs, nullptr);
    std::set<std::string> keys;
    for (const auto& field : d.inputs->fields) {
      SCOPED_TRACE(field.key);
      EXPECT_TRUE(keys.insert(field.key).second);
      EXPECT_FALSE(field.help.empty());
      if (!field.hidden) EXPECT_FALSE(field.label.empty());
      if (field.kind == schema::InputKind::choice) EXPECT_FALSE(field.choices.empty());
      if (field.default_text.empty() || field.kind == schema::InputKind::flag) continue;
      schema::InputValues values(*d.inputs);
      EXPECT_NO_THROW(values.set(field.key, field.default_text));
    }
  }
  EXPECT_NE(find_experiment("attention"), nullptr);
  EXPECT_EQ(find_experiment("no-such"), nullptr);
}

TEST(RunRecordInputs, KeptThroughTheFileAndAbsentFromOlderOnes) {
  RunRecord record;
  record.environment = {"0.1.0", "2.11.0", "stepscope-cli attention --d 16", "2026-11-27T00:00:00Z"};
  record.inputs = {"attention", {{"d", "16"}, {"causal", ""}, {"seq", "64,128"}}};
  const RunRecord back = run_record_from_json(nlohmann::json::parse(write_run_record(record)));
  EXPECT_EQ(back.inputs.experiment, "attention");
  schema::InputValues written(attention_inputs()), read(attention_inputs());
  for (const auto& [key, text] : record.inputs.values) written.set(key, text);
  for (const auto& [key, text] : back.inputs.values) read.set(key, text);
  EXPECT_EQ(read, written);
}

}  // namespace
}  // namespace stepscope
