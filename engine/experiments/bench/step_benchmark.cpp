#include "experiments/bench/step_benchmark.h"

#include <torch/torch.h>

#include "attention/attend.h"
#include "experiments/bench/step_benchmark_case.h"
#include "experiments/harness.h"
#include "runners/device_backend.h"
#include "runners/training_step.h"

namespace stepscope {

void check_runnable(const BenchConfig& config) {
  validate(config);
  const auto backend = make_device_backend(config.device);
  TrainingStep::check_precision(config.precision, backend->device(), config.engine);
  // The fused engine falls back from flash to its own attention where flash cannot take the shape.
  if (config.engine == EngineKind::eager) {
    check_attention_impl(config.model.attention, config.device, config.model.d_head(), config.context, config.context);
  }
}

BenchResult run_step_benchmark(const BenchConfig& config, ProgressSink* progress, const CancelFlag* cancel) {
  StepBenchmarkCase benchmark(config);
  run_case(benchmark, {}, progress, cancel);
  return std::move(benchmark.result());
}

}  // namespace stepscope
