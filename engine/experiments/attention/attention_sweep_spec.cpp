#include "experiments/attention/attention_sweep_spec.h"

#include "experiments/interleaved_rounds.h"

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

int sweep_rounds(const AttentionSweepSpec& spec) {
  if (spec.rounds > 0) return spec.rounds;
  return default_rounds(static_cast<int>(spec.impls.size()), spec.base.measured_steps);
}

}  // namespace stepscope
