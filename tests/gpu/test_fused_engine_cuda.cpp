// The fused engine on a GPU against the eager reference model, from the same weights on the
// same token stream: the loss of every one of 200 steps within 1e-4 (fp32) and 2e-2 (bf16) relative,
// gradients at step 0 within stated tolerances, CUDA graphs replaying the same training as
// launching each kernel, and peak memory no higher than eager's.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include <torch/torch.h>

#include "compat/torch_compat.h"
#include "experiments/bench/bench_sweep.h"
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

void expect_same_training(Precision precision, double tolerance) {
  const auto rows = run_sweep(expand(small_spec(precision, 200)));
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].status, RunStatus::ok) << rows[0].message;
  ASSERT_EQ(rows[1].status, RunStatus::ok) << rows[1].message;
  EXPECT_TRUE(rows[1].cuda_graphs_used) << rows[1].message;
  ASSERT_EQ(rows[1].losses.size(), 200u);
  for (double loss : rows[1].losses) ASSERT_TRUE(std::isfinite(loss));
  EXPECT_LE(rows[1].max_loss_diff, tolerance) << to_string(precision);
  EXPECT_LE(rows[1].peak_memory_bytes, rows[0].peak_memory_bytes) << "fused peak above eager's";
  std::printf("[ fused vs eager ] small %s ctx 256 b 4 train, 200 steps: max loss diff %.3g; step %.2f ms (eager %.2f "
              "ms); peak %.1f MiB (eager %.1f MiB)\n",
              to_string(precision).c_str(), rows[1].max_loss_diff, rows[1].total.mean_ms, rows[0].total.mean_ms,
              rows[1].peak_memory_bytes / 1048576.0, rows[0].peak_memory_bytes / 1048576.0);
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
