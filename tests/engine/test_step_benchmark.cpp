#include <gtest/gtest.h>

#include "model/flops.h"
#include "runners/bench_sweep.h"
#include "runners/step_benchmark.h"

namespace stepscope {
namespace {

BenchConfig tiny_config(StepMode mode) {
  BenchConfig c;
  c.model = model_preset("tiny");
  c.model.context_length = 32;
  c.context = 32;
  c.batch = 2;
  c.mode = mode;
  c.warmup_steps = 1;
  c.measured_steps = 3;
  return c;
}

TEST(StepBenchmark, RecordsThePhasesOfEachMode) {
  for (StepMode mode : {StepMode::forward, StepMode::forward_backward, StepMode::train}) {
    const auto r = run_step_benchmark(tiny_config(mode));
    ASSERT_EQ(r.status, RunStatus::ok) << r.message;
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_EQ(r.timer, "steady-clock");
    for (const auto& s : r.steps) {
      EXPECT_GT(s.forward_ns, 0);
      EXPECT_EQ(s.backward_ns > 0, runs_backward(mode)) << to_string(mode);
      EXPECT_EQ(s.optimizer_ns > 0, runs_optimizer(mode)) << to_string(mode);
      EXPECT_EQ(s.total_ns, s.forward_ns + s.backward_ns + s.optimizer_ns);
    }
    EXPECT_EQ(r.backward.count, runs_backward(mode) ? 3 : 0);
    EXPECT_NEAR(r.tokens_per_second, 64.0 / (r.total.mean_ms * 1e-3), 1e-6 * r.tokens_per_second);
    EXPECT_LT(r.mfu, 0) << "a CPU has no peak in the table";
  }
}

TEST(StepBenchmark, CpuPeakMemoryCoversWeightsGradientsAndOptimizerState) {
  const auto r = run_step_benchmark(tiny_config(StepMode::train));
  ASSERT_EQ(r.status, RunStatus::ok) << r.message;
  // fp32 parameters, gradients, AdamW's m and v: 16 bytes per parameter at least.
  EXPECT_GE(r.peak_memory_bytes, 16 * r.parameters);
  EXPECT_LT(r.peak_memory_bytes, 16 * r.parameters + (512 << 20));
}

TEST(StepBenchmark, FlopsFollowTheMode) {
  const auto forward = run_step_benchmark(tiny_config(StepMode::forward));
  const auto train = run_step_benchmark(tiny_config(StepMode::train));
  EXPECT_DOUBLE_EQ(forward.flops_per_step, forward_matmul_flops(forward.config.model, 2, 32));
  EXPECT_DOUBLE_EQ(train.flops_per_step, 3 * forward.flops_per_step);
}

TEST(StepBenchmark, KnownPeakGivesMfu) {
  auto c = tiny_config(StepMode::forward);
  c.peak_tflops = 1.0;
  const auto r = run_step_benchmark(c);
  EXPECT_NEAR(r.mfu, r.achieved_tflops / 1.0, 1e-12);
  EXPECT_GT(r.mfu, 0);
}

TEST(StepBenchmark, Bf16AutocastRunsOnTheCpu) {
  auto c = tiny_config(StepMode::train);
  c.precision = Precision::bf16;
  const auto r = run_step_benchmark(c);
  EXPECT_EQ(r.status, RunStatus::ok) << r.message;
}

class CancelAfter final : public ProgressSink {
 public:
  CancelAfter(CancelFlag& flag, int measured) : flag_(flag), measured_(measured) {}
  void on_progress(const Progress& p) override {
    if (p.phase == "measuring" && p.step >= measured_) flag_.cancel();
  }

 private:
  CancelFlag& flag_;
  int measured_;
};

TEST(StepBenchmark, CancelKeepsTheStepsMeasured) {
  CancelFlag flag;
  CancelAfter sink(flag, 2);
  auto c = tiny_config(StepMode::train);
  c.measured_steps = 50;
  const auto r = run_step_benchmark(c, &sink, &flag);
  EXPECT_EQ(r.status, RunStatus::cancelled);
  EXPECT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.total.count, 2);
}

TEST(StepBenchmark, InvalidConfigurationsThrowBeforeRunning) {
  auto c = tiny_config(StepMode::train);
  c.context = 64;  // longer than the model's 32
  EXPECT_THROW(run_step_benchmark(c), ConfigError);
  c = tiny_config(StepMode::train);
  c.device = "cuda:0";
#ifndef STEPSCOPE_WITH_CUDA
  EXPECT_THROW(check_runnable(c), ConfigError);
#endif
  c.device = "gpu";
  EXPECT_THROW(check_runnable(c), ConfigError);
}

// An allocation far beyond the machine's memory: the row says OOM and the sweep goes on.
TEST(BenchSweep, OutOfMemoryBecomesARowAndTheSweepContinues) {
  SweepSpec spec;
  auto huge = model_preset("tiny");
  huge.name = "huge";
  // 256 TiB: beyond the x86-64 user address space, so it fails even where memory is overcommitted.
  huge.vocab_size = int64_t{1} << 40;
  spec.models = {huge, model_preset("tiny")};
  spec.contexts = {16};
  spec.batches = {1};
  spec.modes = {StepMode::forward};
  spec.warmup_steps = 0;
  spec.measured_steps = 1;
  const auto rows = run_sweep(expand(spec));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, RunStatus::out_of_memory) << rows[0].message;
  EXPECT_FALSE(rows[0].message.empty());
  EXPECT_EQ(rows[1].status, RunStatus::ok) << rows[1].message;
}

TEST(BenchSweep, ExpandsTheCartesianProductInOrder) {
  SweepSpec spec;
  spec.models = {model_preset("tiny"), model_preset("mini")};
  spec.contexts = {32, 64};
  spec.precisions = {Precision::fp32, Precision::bf16};
  spec.modes = {StepMode::forward, StepMode::train};
  const auto configs = expand(spec);
  ASSERT_EQ(configs.size(), 16u);
  EXPECT_EQ(configs[0].model.name, "tiny");
  EXPECT_EQ(configs[1].mode, StepMode::train);
  EXPECT_EQ(configs[2].precision, Precision::bf16);
  EXPECT_EQ(configs[4].context, 64);
  EXPECT_EQ(configs[4].model.context_length, 64);
  EXPECT_EQ(configs[8].model.name, "mini");
  spec.batches = {0};
  EXPECT_THROW(expand(spec), ConfigError);
}

}  // namespace
}  // namespace stepscope
