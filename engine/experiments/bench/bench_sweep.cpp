#include "experiments/bench/bench_sweep.h"

#include "experiments/bench/engine_check.h"
#include "experiments/bench/step_benchmark_case.h"
#include "experiments/harness.h"

namespace stepscope {

std::vector<BenchResult> run_sweep(const std::vector<BenchConfig>& configs, ProgressSink* progress,
                                   const CancelFlag* cancel,
                                   const std::function<void(const BenchResult&)>& on_result) {
  std::vector<BenchResult> results;
  const int count = static_cast<int>(configs.size());
  for (int i = 0; i < count; ++i) {
    if (cancel && cancel->is_cancelled()) break;
    // One case at a time: a configuration's model is gone before the next is built.
    StepBenchmarkCase benchmark(configs[static_cast<size_t>(i)]);
    run_case(benchmark, {i, count}, progress, cancel);
    BenchResult& result = benchmark.result();
    if (result.status == RunStatus::ok) set_loss_difference(result, results);
    results.push_back(std::move(result));
    if (on_result) on_result(results.back());
  }
  return results;
}

}  // namespace stepscope
