// The fused engine against the eager reference model on the CPU (where the fused operations
// run their LibTorch references): the same names and initial weights, the same loss and
// gradients, the same training over steps (bench --check), checkpoints across engines, and
// the engine axis of the benchmark's inputs.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "core/config_error.h"
#include "experiments/bench/bench_inputs.h"
#include "experiments/bench/bench_sweep.h"
#include "experiments/bench/engine_check.h"
#include "io/checkpoint.h"
#include "model/fused/fused_lm.h"
#include "model/loss.h"
#include "model/transformer_lm.h"

namespace stepscope {
namespace {

ModelConfig tiny(int64_t context = 32) {
  ModelConfig c = model_preset("tiny");
  c.context_length = context;
  return c;
}

const auto kF32 = torch::TensorOptions().dtype(torch::kFloat32);

struct Pair {
  TransformerLM eager{nullptr};
  std::shared_ptr<FusedTransformerLM> fused;
};

Pair same_seed(const ModelConfig& config, c10::ScalarType compute = torch::kFloat32) {
  Pair p;
  torch::manual_seed(11);
  p.eager = TransformerLM(config, kF32);
  torch::manual_seed(11);
  p.fused = std::make_shared<FusedTransformerLM>(config, kF32, compute);
  return p;
}

double relative_max_diff(const at::Tensor& got, const at::Tensor& want) {
  return (got - want).abs().max().item<double>() / std::max(want.abs().max().item<double>(), 1e-30);
}

TEST(FusedEngine, HasTheReferenceNamesShapesAndInitialWeights) {
  auto p = same_seed(tiny());
  const auto eager = p.eager->named_parameters();
  const auto fused = p.fused->named_parameters();
  ASSERT_EQ(eager.size(), fused.size());
  for (size_t i = 0; i < eager.size(); ++i) {
    EXPECT_EQ(fused[i].key(), eager[i].key()) << "parameters() order must match (DDP buckets, checkpoints)";
    ASSERT_TRUE(fused[i].value().sizes().equals(eager[i].value().sizes())) << eager[i].key();
    EXPECT_TRUE(torch::equal(fused[i].value(), eager[i].value())) << eager[i].key() << ": same seed, same weights";
    EXPECT_EQ(fused[i].value().storage().data(), p.fused->flat_parameters().storage().data())
        << eager[i].key() << " is a view of the flat buffer";
  }
  EXPECT_EQ(p.fused->parameter_stages(), p.eager->parameter_stages());
}

TEST(FusedEngine, Fp32LossAndGradientsMatchTheEagerModel) {
  const auto config = tiny();
  auto p = same_seed(config);
  torch::manual_seed(3);
  const auto ids = torch::randint(config.vocab_size, {3, 29}, torch::kInt64);  // odd length
  const auto targets = torch::randint(config.vocab_size, {3, 29}, torch::kInt64);
  const auto eager_loss = mean_cross_entropy(p.eager->forward(ids), targets);
  const auto fused_loss = p.fused->loss(ids, targets);
  EXPECT_NEAR(fused_loss.item<double>(), eager_loss.item<double>(), 1e-5 * eager_loss.item<double>());
  eager_loss.backward();
  fused_loss.backward();
  const auto eager = p.eager->named_parameters();
  const auto fused = p.fused->named_parameters();
  for (size_t i = 0; i < eager.size(); ++i) {
    ASSERT_TRUE(fused[i].value().grad().defined()) << fused[i].key();
    EXPECT_LT(relative_max_diff(fused[i].value().grad(), eager[i].value().grad()), 1e-4) << eager[i].key();
  }
}

TEST(FusedEngine, Bf16ComputeStaysCloseToFp32) {
  const auto config = tiny();
  auto p = same_seed(config, torch::kBFloat16);
  torch::manual_seed(4);
  const auto ids = torch::randint(config.vocab_size, {2, 32}, torch::kInt64);
  const auto targets = torch::randint(config.vocab_size, {2, 32}, torch::kInt64);
  const double eager = mean_cross_entropy(p.eager->forward(ids), targets).item<double>();
  const auto loss = p.fused->loss(ids, targets);
  EXPECT_EQ(loss.scalar_type(), torch::kFloat32);
  EXPECT_NEAR(loss.item<double>(), eager, 2e-2 * eager);
  EXPECT_EQ(p.fused->compute_copy().scalar_type(), torch::kBFloat16);
  loss.backward();
  for (const auto& named : p.fused->named_parameters()) {
    EXPECT_EQ(named.value().grad().scalar_type(), torch::kFloat32) << named.key() << ": masters learn in fp32";
  }
}

// The projections' weight gradients written in bf16 into one buffer: the same values as the
// autograd path's fp32 gradients (which are bf16 products cast up), no autograd gradient for
// their masters until attached, every other parameter unchanged.
TEST(FusedEngine, Bf16GradientBufferHoldsTheProjectionsGradients) {
  const auto config = tiny();
  auto with = same_seed(config, torch::kBFloat16);
  auto without = same_seed(config, torch::kBFloat16);
  torch::manual_seed(5);
  const auto ids = torch::randint(config.vocab_size, {2, 31}, torch::kInt64);
  const auto targets = torch::randint(config.vocab_size, {2, 31}, torch::kInt64);
  with.fused->set_gradient_buffer(at::full({with.fused->flat_parameters().numel()}, 7.0, torch::kBFloat16));
  const auto loss = with.fused->loss(ids, targets);
  const auto reference = without.fused->loss(ids, targets);
  EXPECT_TRUE(torch::equal(loss, reference));
  loss.backward();
  reference.backward();
  const auto got = with.fused->named_parameters();
  const auto want = without.fused->named_parameters();
  const auto is_projection = [](const std::string& name) { return name.find("_proj") != std::string::npos ||
                                                                  name.find("ffn.w") != std::string::npos; };
  int projections = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (is_projection(got[i].key())) {
      ++projections;
      EXPECT_FALSE(got[i].value().grad().defined()) << got[i].key() << ": no autograd gradient";
    } else {
      ASSERT_TRUE(got[i].value().grad().defined()) << got[i].key();
      EXPECT_TRUE(torch::equal(got[i].value().grad(), want[i].value().grad())) << got[i].key();
    }
  }
  EXPECT_EQ(projections, 7 * static_cast<int>(config.num_layers));
  with.fused->attach_gradient_buffer();
  for (size_t i = 0; i < got.size(); ++i) {
    if (!is_projection(got[i].key())) continue;
    const auto& grad = got[i].value().grad();
    ASSERT_TRUE(grad.defined()) << got[i].key();
    EXPECT_EQ(grad.scalar_type(), torch::kBFloat16);
    EXPECT_EQ(grad.storage().data(), with.fused->gradient_buffer().storage().data()) << got[i].key();
    // Every element overwritten (the buffer started at 7), equal to the fp32 path's exactly.
    EXPECT_TRUE(torch::equal(grad.to(torch::kFloat32), want[i].value().grad())) << got[i].key();
  }
  EXPECT_THROW(with.fused->set_gradient_buffer(at::zeros({3}, torch::kBFloat16)), std::invalid_argument);
  EXPECT_THROW(with.fused->set_gradient_buffer(at::zeros({with.fused->flat_parameters().numel()}, torch::kFloat32)),
               std::invalid_argument);
}

TEST(FusedEngine, CheckpointsCrossEnginesWithTheSeedsNames) {
  const auto config = tiny();
  auto p = same_seed(config, torch::kBFloat16);
  torch::manual_seed(5);
  TransformerLM other(config, kF32);  // other weights
  load_state_dict(*p.fused, model_state_dict(*other));
  p.fused->refresh_compute_copy();
  const auto saved = model_state_dict(*p.fused);
  ASSERT_EQ(saved.size(), other->named_parameters().size());
  for (size_t i = 0; i < saved.size(); ++i) {
    EXPECT_EQ(saved[i].name, other->named_parameters()[i].key());
    EXPECT_EQ(saved[i].tensor.numel(), other->named_parameters()[i].value().numel()) << "a view saves itself only";
    EXPECT_TRUE(torch::equal(saved[i].tensor, other->named_parameters()[i].value())) << saved[i].name;
  }
  EXPECT_TRUE(torch::equal(p.fused->compute_copy(), p.fused->flat_parameters().to(torch::kBFloat16)));
}

SweepSpec tiny_spec(std::vector<EngineKind> engines, Precision precision = Precision::fp32) {
  SweepSpec spec;
  spec.models = {tiny(16)};
  spec.contexts = {16};
  spec.batches = {2};
  spec.precisions = {precision};
  spec.modes = {StepMode::train};
  spec.engines = std::move(engines);
  spec.base.warmup_steps = 0;
  spec.base.measured_steps = 12;
  return spec;
}

TEST(FusedEngine, TrainsLikeTheEagerEngineStepByStep) {
  auto spec = tiny_spec({EngineKind::eager, EngineKind::fused});
  spec.base.record_losses = true;
  const auto rows = run_sweep(expand(spec));
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].status, RunStatus::ok) << rows[0].message;
  ASSERT_EQ(rows[1].status, RunStatus::ok) << rows[1].message;
  EXPECT_EQ(rows[1].config.engine, EngineKind::fused);
  EXPECT_EQ(rows[1].config.model.attention, AttentionImpl::flash);
  ASSERT_EQ(rows[1].losses.size(), 12u);
  EXPECT_NE(rows[1].losses.front(), rows[1].losses.back()) << "a fresh batch each step";
  EXPECT_GE(rows[1].max_loss_diff, 0);
  EXPECT_LT(rows[1].max_loss_diff, 1e-4) << "fp32: the issue's tolerance";
  EXPECT_LT(rows[0].max_loss_diff, 0) << "the eager row is the reference";
  EXPECT_FALSE(rows[1].cuda_graphs_used) << "no graphs on a CPU";
}

TEST(FusedEngine, RunsBf16OnTheCpuAndRefusesFp16There) {
  const auto rows = run_sweep(expand(tiny_spec({EngineKind::fused}, Precision::bf16)));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RunStatus::ok) << rows[0].message;
  try {
    run_sweep(expand(tiny_spec({EngineKind::fused}, Precision::fp16)));
    FAIL() << "fp16 on the CPU";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "precision");
    EXPECT_NE(std::string(e.what()).find("fp16"), std::string::npos) << e.what();
  }
}

TEST(FusedEngine, EngineAxisExpandsWithFlashForFused) {
  auto spec = tiny_spec({EngineKind::eager, EngineKind::fused});
  spec.attentions = {AttentionImpl::naive, AttentionImpl::flash};
  const auto configs = expand(spec);
  ASSERT_EQ(configs.size(), 3u) << "eager naive, eager flash, fused (always flash)";
  EXPECT_EQ(configs[2].engine, EngineKind::fused);
  EXPECT_EQ(configs[2].model.attention, AttentionImpl::flash);
}

TEST(FusedEngine, InputsRoundTripAndCheckNeedsBothEngines) {
  schema::InputValues v(bench_inputs());
  v.set("model", "tiny");
  v.set("engine", "fused,eager");
  v.set_flag("check", true);
  v.set("cuda-graphs", "off");
  const SweepSpec spec = bench_spec(v);
  ASSERT_EQ(spec.engines.size(), 2u);
  EXPECT_EQ(spec.engines[0], EngineKind::eager) << "--check measures eager first";
  EXPECT_TRUE(spec.base.record_losses);
  EXPECT_FALSE(spec.base.cuda_graphs);
  const SweepSpec again = bench_spec(bench_values(spec));
  EXPECT_EQ(again.engines, spec.engines);
  EXPECT_TRUE(again.check_engines);
  EXPECT_FALSE(again.base.cuda_graphs);

  schema::InputValues one(bench_inputs());
  one.set("model", "tiny");
  one.set("engine", "fused");
  one.set_flag("check", true);
  try {
    bench_spec(one);
    FAIL() << "--check with one engine";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "check");
  }
  schema::InputValues bad(bench_inputs());
  try {
    bad.set("engine", "compiled");
    bench_spec(bad);
    FAIL() << "unknown engine";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "engine");
  }
}

TEST(FusedEngine, LossDifferenceIsTheLargestRelativeOne) {
  EXPECT_NEAR(max_relative_loss_difference({2.0, 4.0, 8.0}, {2.0, 4.2, 7.9}), 0.05, 1e-12);
  EXPECT_LT(max_relative_loss_difference({}, {1.0}), 0);
  EXPECT_TRUE(std::isnan(max_relative_loss_difference({1.0}, {std::nan("")})));
}

}  // namespace
}  // namespace stepscope
