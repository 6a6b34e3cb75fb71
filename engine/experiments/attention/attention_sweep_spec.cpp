#include "experiments/attention/attention_sweep_spec.h"

#include <string>

#include "core/config_error.h"
#include "experiments/interleaved_rounds.h"
#include "model/model_config.h"

namespace stepscope {

std::vector<AttentionConfig> expand(const AttentionSweepSpec& spec) {
  std::vector<AttentionConfig> out;
  for (Precision precision : spec.precisions) {
    for (int64_t d : spec.head_dims) {
      for (int64_t seq : spec.seqs) {
        for (AttentionImpl impl : spec.impls) {
          AttentionConfig c = spec.base;
          c.impl = impl;
          c.head_dim = d;
          c.seq = seq;
          c.precision = precision;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

void validate_rounds(const AttentionSweepSpec& spec) {
  if (spec.rounds < 0) throw ConfigError("rounds cannot be negative", "rounds");
  if (spec.rounds > spec.base.measured_steps) {
    throw ConfigError(std::to_string(spec.rounds) + " rounds need at least " + std::to_string(spec.rounds) +
                          " measured passes; there are " + std::to_string(spec.base.measured_steps),
                      "rounds");
  }
}

int sweep_rounds(const AttentionSweepSpec& spec) {
  if (spec.rounds > 0) return spec.rounds;
  return default_rounds(static_cast<int>(spec.impls.size()), spec.base.measured_steps);
}

}  // namespace stepscope
