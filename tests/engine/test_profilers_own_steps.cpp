// The harness with ObserverSpec::own_steps: the measured steps run untraced, then as many steps
// again for the kernel and operator profilers alone; the memory observer stops with the measured
// steps. Driven on the CPU with a case that says when each step ran and what it saw.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/progress.h"
#include "experiments/experiment_case.h"
#include "experiments/harness.h"
#include "profiling/allocation_recorder.h"
#include "profiling/range_recorder.h"
#include "profiling/step_ranges.h"

namespace stepscope {
namespace {

struct SeenStep {
  int index = 0;
  bool warmup = false, profiled = false, with_memory = false;
};

class RecordingCase final : public ExperimentCase {
 public:
  RecordingCase(ObserverSpec spec, int warmup, int measured) : spec_(spec), warmup_(warmup), measured_(measured) {}
  std::string label() const override { return "recording"; }
  Device device() const override { return Device{}; }
  int warmup_steps() const override { return warmup_; }
  int measured_steps() const override { return measured_; }
  ObserverSpec observers() const override { return spec_; }
  void prepare(DeviceBackend&, profiling::AllocationRecorder*) override {}
  void run_step(const StepContext& context) override {
    seen.push_back({context.index, context.warmup, context.profiled, context.memory != nullptr});
    if (context.memory) context.memory->set_step(context.index, context.warmup);
    {
      profiling::ScopedRange range(profiling::step_ranges::kStep);
      // An allocation a step, so that the memory observer has something to see in each.
      auto t = torch::ones({1 << 16});
      (void)t.sum().item<float>();
    }
    if (context.memory) context.memory->set_step(-1, false);
  }
  void finish(CaseEnd case_end) override { end = std::move(case_end); }

  std::vector<SeenStep> seen;
  CaseEnd end;

 private:
  ObserverSpec spec_;
  int warmup_, measured_;
};

struct PhaseLog final : ProgressSink {
  std::vector<std::pair<RunPhase, int>> phases;  // each phase as it began, with its steps
  void on_progress(const Progress& p) override {
    if (p.step == 0) phases.emplace_back(p.phase, p.steps_in_phase);
  }
};

ObserverSpec kernels_and_memory(bool own_steps) {
  ObserverSpec spec;
  spec.kernels = true;
  spec.memory = true;
  spec.own_steps = own_steps;
  return spec;
}

TEST(ProfilersOwnSteps, RunAfterTheMeasuredStepsWhichRunUntraced) {
  RecordingCase c(kernels_and_memory(true), 1, 3);
  PhaseLog log;
  run_case(c, {0, 1}, &log, nullptr);
  ASSERT_EQ(c.end.status, RunStatus::ok) << c.end.message;
  // 1 warm-up, 3 measured (indices 1-3), then 3 profiled (4-6) with no memory recorder.
  ASSERT_EQ(c.seen.size(), 7u);
  for (size_t i = 0; i < c.seen.size(); ++i) {
    EXPECT_EQ(c.seen[i].index, static_cast<int>(i));
    EXPECT_EQ(c.seen[i].warmup, i == 0);
    EXPECT_EQ(c.seen[i].profiled, i >= 4) << i;
    EXPECT_EQ(c.seen[i].with_memory, i < 4) << i;
  }
  EXPECT_EQ(c.end.measured_steps, 3);
  const std::vector<std::pair<RunPhase, int>> want = {{RunPhase::preparing, 0}, {RunPhase::warmup, 1},
                                                      {RunPhase::measuring, 3}, {RunPhase::profiling, 3},
                                                      {RunPhase::done, 0}};
  EXPECT_EQ(log.phases, want);

  // The kernel profiler saw only its own steps; the memory timeline ends with the measured ones.
  ASSERT_TRUE(c.end.observation.kernel_profile);
  EXPECT_EQ(c.end.observation.kernel_profile->measured_steps, 3);
  ASSERT_TRUE(c.end.observation.allocation_log);
  int last_step = -1, allocations_in_steps = 0;
  for (const auto& e : c.end.observation.allocation_log->events) {
    last_step = std::max(last_step, e.step);
    if (e.step >= 0 && e.bytes > 0) ++allocations_in_steps;
  }
  EXPECT_EQ(last_step, 3) << "no allocation of the profiled steps (4-6) is in the memory log";
  EXPECT_GE(allocations_in_steps, 4);
}

TEST(ProfilersOwnSteps, WithoutThemTheProfilersWatchTheMeasuredSteps) {
  RecordingCase c(kernels_and_memory(false), 1, 3);
  PhaseLog log;
  run_case(c, {0, 1}, &log, nullptr);
  ASSERT_EQ(c.end.status, RunStatus::ok) << c.end.message;
  ASSERT_EQ(c.seen.size(), 4u);
  for (const auto& s : c.seen) EXPECT_FALSE(s.profiled);
  for (const auto& [phase, steps] : log.phases) EXPECT_NE(phase, RunPhase::profiling);
  ASSERT_TRUE(c.end.observation.kernel_profile);
  EXPECT_EQ(c.end.observation.kernel_profile->measured_steps, 3);
}

TEST(ProfilersOwnSteps, OnlyTheKernelAndOperatorProfilersHaveThem) {
  ObserverSpec memory_only;
  memory_only.memory = true;
  memory_only.own_steps = true;  // nothing to trace: no steps of its own
  RecordingCase c(memory_only, 0, 2);
  run_case(c, {0, 1}, nullptr, nullptr);
  EXPECT_EQ(c.seen.size(), 2u);
  EXPECT_FALSE(c.end.observation.kernel_profile);
}

// Cancelled while measuring: the profilers' steps do not run, and no profile claims to be one.
TEST(ProfilersOwnSteps, CancelledBeforeThemLeavesNoProfile) {
  struct CancelOnMeasuring final : ProgressSink {
    CancelFlag flag;
    void on_progress(const Progress& p) override {
      if (p.phase == RunPhase::measuring && p.step == 1) flag.cancel();
    }
  } sink;
  RecordingCase c(kernels_and_memory(true), 0, 3);
  run_case(c, {0, 1}, &sink, &sink.flag);
  EXPECT_EQ(c.end.status, RunStatus::cancelled);
  EXPECT_EQ(c.end.measured_steps, 1);
  for (const auto& s : c.seen) EXPECT_FALSE(s.profiled);
  EXPECT_FALSE(c.end.observation.kernel_profile);
  EXPECT_TRUE(c.end.observation.allocation_log) << "the measured steps' memory is kept";
}

}  // namespace
}  // namespace stepscope
