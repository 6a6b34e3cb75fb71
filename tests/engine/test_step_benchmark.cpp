#include <gtest/gtest.h>

#include <map>

#include "core/config_error.h"
#include "model/flops.h"
#include "experiments/bench/bench_sweep.h"
#include "experiments/bench/step_benchmark.h"

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
    if (p.phase == RunPhase::measuring && p.step >= measured_) flag_.cancel();
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
  c.device = Device{DeviceKind::cuda, 0};
#ifndef STEPSCOPE_WITH_CUDA
  EXPECT_THROW(check_runnable(c), ConfigError);
#endif
  // A malformed device is refused where its text is read: a BenchConfig holds a parsed one.
  EXPECT_THROW(c.device = parse_device("gpu"), ConfigError);
}

// A configuration far beyond the machine's memory: the row says OOM and the sweep goes on.
// (On the CPU the estimate refuses it before anything is allocated; the GPU test
// CudaEngine.OutOfMemoryIsARowAndMemoryIsReleased covers a failing allocation.)
TEST(BenchSweep, OutOfMemoryBecomesARowAndTheSweepContinues) {
  SweepSpec spec;
  auto huge = model_preset("tiny");
  huge.name = "huge";
  // 16M tokens x 16384 wide: a terabyte of embeddings alone.
  huge.vocab_size = kMaxDimension;
  huge.d_model = 16384;
  spec.models = {huge, model_preset("tiny")};
  spec.contexts = {16};
  spec.batches = {1};
  spec.modes = {StepMode::forward};
  spec.base.warmup_steps = 0;
  spec.base.measured_steps = 1;
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

namespace stepscope {
namespace {

// Bytes of the allocation live at `address` at `time` in the log.
int64_t live_bytes(const profiling::AllocationLog& log, uint64_t address, int64_t time) {
  int64_t bytes = 0;
  for (const auto& e : log.events) {
    if (e.time_ns > time) break;
    if (e.address == address) bytes = e.bytes > 0 ? e.bytes : 0;
  }
  return bytes;
}

TEST(StepBenchmark, MemoryRecordHasPhasesAndLabelsMatchingTheConfiguration) {
  auto c = tiny_config(StepMode::train);
  c.profile_memory = true;
  const auto r = run_step_benchmark(c);
  ASSERT_EQ(r.status, RunStatus::ok) << r.message;
  ASSERT_TRUE(r.allocation_log);
  const auto& log = *r.allocation_log;
  EXPECT_EQ(log.dropped_events, 0u);
  // forward, backward, optimizer step, step end: for 1 warm-up and 3 measured steps.
  ASSERT_EQ(log.phases.size(), 16u);
  EXPECT_EQ(log.phases[4].phase, "forward");
  EXPECT_EQ(log.phases[4].step, 1);
  EXPECT_FALSE(log.phases[4].warmup);
  EXPECT_TRUE(log.phases[0].warmup);
  // The first labels name the parameters: 4 bytes each in fp32, as the configuration implies.
  std::map<uint64_t, int64_t> parameter_bytes, state_bytes;
  for (const auto& label : log.labels) {
    auto& into = label.category == profiling::MemoryCategory::parameter         ? parameter_bytes
                 : label.category == profiling::MemoryCategory::optimizer_state ? state_bytes
                                                                                : parameter_bytes;
    if (label.category != profiling::MemoryCategory::parameter &&
        label.category != profiling::MemoryCategory::optimizer_state) {
      continue;
    }
    into.emplace(label.address, live_bytes(log, label.address, label.time_ns));
  }
  int64_t total_parameters = 0, total_state = 0;
  for (const auto& [address, bytes] : parameter_bytes) total_parameters += bytes;
  for (const auto& [address, bytes] : state_bytes) total_state += bytes;
  EXPECT_EQ(total_parameters, 4 * r.parameters);
  EXPECT_EQ(total_state, 8 * r.parameters);  // AdamW's m and v
  bool saw_softmax = false;
  for (const auto& e : log.events) saw_softmax |= e.phase == "softmax";
  EXPECT_TRUE(saw_softmax) << "allocations carry the range they happened in";
}

}  // namespace
}  // namespace stepscope

#include "profiling/memory_timeline.h"

namespace stepscope {
namespace {

// The analytic check of the memory timeline: parameters, gradients and AdamW state hold
// 4, 4 and 8 bytes per parameter in fp32.
TEST(StepBenchmark, MemoryTimelineCategoriesMatchTheConfiguration) {
  auto c = tiny_config(StepMode::train);
  c.profile_memory = true;
  const auto r = run_step_benchmark(c);
  ASSERT_TRUE(r.allocation_log);
  profiling::TimelineOptions options;
  options.device = -1;
  const auto timeline = profiling::build_memory_timeline(*r.allocation_log, options);
  const auto peak = [&](const std::string& label) -> const profiling::MemoryPeak& {
    for (const auto& p : timeline.peaks) {
      if (p.label == label) return p;
    }
    throw std::runtime_error("no peak " + label);
  };
  const auto bytes = [](const profiling::MemoryPeak& p, profiling::MemoryCategory category) {
    return p.bytes_by_category[profiling::category_index(category)];
  };
  using profiling::MemoryCategory;
  const int64_t n = r.parameters;
  const auto& init = peak("after model initialisation");
  EXPECT_EQ(bytes(init, MemoryCategory::parameter), 4 * n);
  EXPECT_EQ(bytes(init, MemoryCategory::input), 2 * 8 * c.batch * c.context);  // tokens and targets, int64
  const auto& after = peak("after optimizer step");
  EXPECT_EQ(bytes(after, MemoryCategory::parameter), 4 * n);
  EXPECT_EQ(bytes(after, MemoryCategory::gradient), 4 * n);
  EXPECT_EQ(bytes(after, MemoryCategory::optimizer_state), 8 * n);
  const auto& backward = peak("backward");
  EXPECT_GT(backward.allocated_bytes, 8 * n);
  EXPECT_GT(bytes(peak("forward"), MemoryCategory::activation), 0);
}

}  // namespace
}  // namespace stepscope
