// The fused engine on a GPU against the eager reference model, from the same weights on the
// same token stream: the step losses within 1e-4 (fp32) and 2e-2 (bf16) relative (see below),
// gradients at step 0 within stated tolerances, CUDA graphs replaying the same training as
// launching each kernel, and peak memory no higher than eager's.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include <torch/torch.h>

#include "compat/torch_compat.h"
#include "experiments/bench/bench_sweep.h"
#include "experiments/bench/engine_check.h"
#include "model/fused/fused_lm.h"
#include "model/loss.h"
#include "model/transformer_lm.h"

namespace stepscope {
namespace {

#define REQUIRE_GPU()                                                                  \
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible to this build"

SweepSpec small_spec(Precision precision, int steps) {
  SweepSpec spec;
  spec.models = {model_preset("small")};
  spec.contexts = {256};
  spec.batches = {4};
  spec.precisions = {precision};
  spec.modes = {StepMode::train};
  spec.engines = {EngineKind::eager, EngineKind::fused};
  spec.base.warmup_steps = 2;
  spec.base.measured_steps = steps;
  spec.base.device = Device{DeviceKind::cuda, -1};
  spec.base.record_losses = true;
  return spec;
}

// Two training runs that differ by rounding drift apart at a rate set by the training itself
// (Adam divides by sqrt(v), so tiny differences in small gradients become whole-sized updates).
// The reference for that rate is the reference model against itself with one change of
// summation order: eager with naive attention against eager with flash attention (same
// mathematics, a different kernel). The fused engine must stay within the tolerance for the
// first 50 steps, and over 200 steps within the tolerance or, where that pair of eager runs
// drifts as far, within 3x their drift.
void expect_same_training(Precision precision, double tolerance) {
  const auto rows = run_sweep(expand(small_spec(precision, 200)));
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].status, RunStatus::ok) << rows[0].message;
  ASSERT_EQ(rows[1].status, RunStatus::ok) << rows[1].message;
  auto eager_flash = small_spec(precision, 200);
  eager_flash.engines = {EngineKind::eager};
  eager_flash.attentions = {AttentionImpl::flash};
  const auto again = run_sweep(expand(eager_flash));
  ASSERT_EQ(again.at(0).status, RunStatus::ok) << again[0].message;
  ASSERT_EQ(again[0].config.model.attention, AttentionImpl::flash);
  EXPECT_TRUE(rows[1].cuda_graphs_used) << rows[1].message;
  ASSERT_EQ(rows[1].losses.size(), 200u);
  for (double loss : rows[1].losses) ASSERT_TRUE(std::isfinite(loss));
  const auto head = [](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.begin() + 50); };
  const double first_50 = max_relative_loss_difference(head(rows[0].losses), head(rows[1].losses));
  const double eager_drift = max_relative_loss_difference(rows[0].losses, again[0].losses);
  EXPECT_LE(first_50, tolerance) << to_string(precision) << ": steps 1-50";
  EXPECT_LE(rows[1].max_loss_diff, std::max(tolerance, 3 * eager_drift)) << to_string(precision) << ": 200 steps";
  EXPECT_LE(rows[1].peak_memory_bytes, rows[0].peak_memory_bytes) << "fused peak above eager's";
  std::printf("[ fused vs eager ] small %s ctx 256 b 4 train: max loss diff %.3g over 50 steps, %.3g over 200 (eager "
              "naive against eager flash attention: %.3g over 50, %.3g over 200); step %.2f ms (eager %.2f ms); "
              "peak %.1f MiB (eager %.1f MiB)\n",
              to_string(precision).c_str(), first_50, rows[1].max_loss_diff,
              max_relative_loss_difference(head(rows[0].losses), head(again[0].losses)), eager_drift,
              rows[1].total.mean_ms, rows[0].total.mean_ms, rows[1].peak_memory_bytes / 1048576.0,
              rows[0].peak_memory_bytes / 1048576.0);
}

TEST(FusedEngineCuda, Fp32TrainsLikeEagerFor200Steps) {
  REQUIRE_GPU();
  expect_same_training(Precision::fp32, 1e-4);
}

TEST(FusedEngineCuda, Bf16TrainsLikeEagerFor200Steps) {
  REQUIRE_GPU();
  expect_same_training(Precision::bf16, 2e-2);
}

TEST(FusedEngineCuda, GraphsReplayTheSameTrainingAsKernelLaunches) {
  REQUIRE_GPU();
  auto spec = small_spec(Precision::bf16, 20);
  spec.engines = {EngineKind::fused};
  const auto graphs = run_sweep(expand(spec));
  spec.base.cuda_graphs = false;
  const auto launches = run_sweep(expand(spec));
  ASSERT_EQ(graphs.at(0).status, RunStatus::ok) << graphs[0].message;
  ASSERT_EQ(launches.at(0).status, RunStatus::ok) << launches[0].message;
  EXPECT_TRUE(graphs[0].cuda_graphs_used);
  EXPECT_FALSE(launches[0].cuda_graphs_used);
  ASSERT_EQ(graphs[0].losses.size(), launches[0].losses.size());
  for (size_t i = 0; i < graphs[0].losses.size(); ++i) {
    EXPECT_NEAR(graphs[0].losses[i], launches[0].losses[i], 1e-6 * launches[0].losses[i]) << "step " << i;
  }
  std::printf("[ graphs ] small bf16 fused step: %.2f ms with graphs, %.2f ms without\n", graphs[0].total.mean_ms,
              launches[0].total.mean_ms);
}

// Step 0's gradients: fp32 to 1e-4 of each tensor's largest (reduction orders differ: flash
// against naive softmax, fused RMSNorm sums); bf16 to 3e-2 (one bf16 rounding of dW either way,
// products rounded at different points).
TEST(FusedEngineCuda, StepZeroGradientsMatchEager) {
  REQUIRE_GPU();
  ModelConfig config = model_preset("small");
  config.context_length = 256;
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCUDA);
  for (const auto precision : {Precision::fp32, Precision::bf16}) {
    const bool bf16 = precision == Precision::bf16;
    torch::manual_seed(0);
    TransformerLM eager(config, options);
    torch::manual_seed(0);
    FusedTransformerLM fused(config, options, bf16 ? torch::kBFloat16 : torch::kFloat32);
    const auto ids = torch::randint(config.vocab_size, {4, 256}, options.dtype(torch::kInt64));
    const auto targets = torch::randint(config.vocab_size, {4, 256}, options.dtype(torch::kInt64));
    at::Tensor eager_loss;
    {
      std::optional<compat::AutocastGuard> autocast;
      if (bf16) autocast.emplace(c10::DeviceType::CUDA, torch::kBFloat16);
      eager_loss = mean_cross_entropy(eager(ids), targets);
    }
    const auto fused_loss = fused.loss(ids, targets);
    eager_loss.backward();
    fused_loss.backward();
    const double tolerance = bf16 ? 3e-2 : 1e-4;
    const auto e = eager->named_parameters();
    const auto f = fused.named_parameters();
    double worst = 0;
    for (size_t i = 0; i < e.size(); ++i) {
      const auto& want = e[i].value().grad();
      const double diff = (f[i].value().grad() - want).abs().max().item<double>() /
                          std::max(want.abs().max().item<double>(), 1e-30);
      worst = std::max(worst, diff);
      EXPECT_LE(diff, tolerance) << to_string(precision) << " " << e[i].key();
    }
    std::printf("[ step-0 gradients ] %s: largest relative difference %.3g (tolerance %.0e)\n",
                to_string(precision).c_str(), worst, tolerance);
  }
}

}  // namespace
}  // namespace stepscope
