#include "experiments/bench/bench_duration.h"

#include "model/flops.h"

namespace stepscope {

std::optional<double> measured_pace(const BenchResult& result) {
  if (result.status != RunStatus::ok || result.total.mean_ms <= 0 || result.flops_per_step <= 0) return std::nullopt;
  return result.flops_per_step / (result.total.mean_ms / 1000.0);
}

double estimated_run_seconds(const std::vector<BenchConfig>& configs, double flops_per_second) {
  double seconds = 0;
  for (const BenchConfig& c : configs) {
    const double flops = step_matmul_flops(c.model, c.batch, c.context, runs_backward(c.mode));
    seconds += static_cast<double>(total_steps(c)) * flops / flops_per_second;
  }
  return seconds;
}

}  // namespace stepscope
