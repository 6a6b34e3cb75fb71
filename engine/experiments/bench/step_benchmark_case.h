// The step benchmark as an experiment case: one configuration's model, optimizer and batch;
// a step is forward (+ loss), backward and optimizer in the configuration's mode and precision.
#pragma once

#include <memory>

#include "experiments/experiment_case.h"
#include "runners/bench_types.h"

namespace stepscope {

class StepClock;
class TrainingStep;

class StepBenchmarkCase final : public ExperimentCase {
 public:
  explicit StepBenchmarkCase(BenchConfig config);
  ~StepBenchmarkCase() override;

  std::string label() const override;
  Device device() const override { return config_.device; }
  int warmup_steps() const override { return config_.warmup_steps; }
  int measured_steps() const override { return config_.measured_steps; }
  ObserverSpec observers() const override;
  void check(DeviceBackend& backend) override;
  void prepare(DeviceBackend& backend, profiling::AllocationRecorder* memory) override;
  void run_step(const StepContext& step) override;
  void after_measuring(DeviceBackend& backend) override;
  void release() override;
  void finish(CaseEnd end) override;

  BenchResult& result() { return result_; }

 private:
  BenchConfig config_;
  BenchResult result_;
  std::vector<int64_t> profiled_ns_;  // the profilers' own steps, whole
  std::unique_ptr<TrainingStep> step_;
  std::unique_ptr<StepClock> clock_;
  std::string graphs_note_;  // why CUDA graphs are off, or what they change in a profile
};

}  // namespace stepscope
