#include <vector>

#include "model/flops.h"
#include "runners/gpu_peaks.h"
#include "core/phase_stats.h"
#include "experiments/bench/step_benchmark.h"

namespace stepscope {

void summarize(BenchResult& r) {
  const auto& c = r.config;
  std::vector<int64_t> total, forward, backward, optimizer;
  for (const auto& s : r.steps) {
    total.push_back(s.total_ns);
    forward.push_back(s.forward_ns);
    if (runs_backward(c.mode)) backward.push_back(s.backward_ns);
    if (runs_optimizer(c.mode)) optimizer.push_back(s.optimizer_ns);
  }
  r.total = summarize_ns(total);
  r.forward = summarize_ns(forward);
  r.backward = summarize_ns(backward);
  r.optimizer = summarize_ns(optimizer);
  r.parameters = parameter_count(c.model);

  r.flops_per_step = step_matmul_flops(c.model, c.batch, c.context, runs_backward(c.mode));
  r.peak_tflops = c.peak_tflops > 0 ? c.peak_tflops : peak_tflops(r.device_name, c.precision);
  if (r.total.count == 0 || r.total.mean_ms <= 0) {
    r.tokens_per_second = 0;
    r.achieved_tflops = 0;
    r.mfu = -1;
    return;
  }
  const double seconds = r.total.mean_ms * 1e-3;
  r.tokens_per_second = static_cast<double>(c.batch * c.context) / seconds;
  r.achieved_tflops = r.flops_per_step / seconds * 1e-12;
  r.mfu = r.peak_tflops > 0 ? r.achieved_tflops / r.peak_tflops : -1;
}

}  // namespace stepscope
