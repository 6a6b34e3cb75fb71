#include "experiments/bench/engine_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope {

double max_relative_loss_difference(const std::vector<double>& reference, const std::vector<double>& other) {
  const size_t n = std::min(reference.size(), other.size());
  if (n == 0) return -1;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double diff = std::abs(other[i] - reference[i]) / std::abs(reference[i]);
    if (std::isnan(diff)) return std::numeric_limits<double>::quiet_NaN();
    worst = std::max(worst, diff);
  }
  return worst;
}

bool same_step_but_engine(const BenchConfig& a, const BenchConfig& b) {
  const ModelConfig& x = a.model;
  const ModelConfig& y = b.model;
  return x.name == y.name && x.vocab_size == y.vocab_size && x.d_model == y.d_model && x.d_ff == y.d_ff &&
         x.num_layers == y.num_layers && x.num_heads == y.num_heads && x.rope_theta == y.rope_theta &&
         a.context == b.context && a.batch == b.batch && a.precision == b.precision && a.mode == b.mode &&
         a.device == b.device && a.seed == b.seed && a.warmup_steps == b.warmup_steps;
}

void set_loss_difference(BenchResult& fused, const std::vector<BenchResult>& earlier) {
  if (fused.config.engine != EngineKind::fused || fused.losses.empty()) return;
  for (const BenchResult& r : earlier) {
    if (r.config.engine == EngineKind::eager && r.status == RunStatus::ok &&
        r.losses.size() == fused.losses.size() && same_step_but_engine(r.config, fused.config)) {
      fused.max_loss_diff = max_relative_loss_difference(r.losses, fused.losses);
      return;
    }
  }
}

}  // namespace stepscope
