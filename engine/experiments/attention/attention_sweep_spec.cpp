#include "experiments/attention/attention_sweep_spec.h"

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

}  // namespace stepscope
