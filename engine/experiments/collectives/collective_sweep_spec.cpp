#include "experiments/collectives/collective_sweep_spec.h"

#include <cctype>
#include <utility>

namespace stepscope {

std::vector<CollectiveConfig> expand(const CollectiveSweepSpec& spec, int ranks) {
  std::vector<CollectiveConfig> out;
  for (CollectiveOp op : spec.ops) {
    for (Precision dtype : spec.dtypes) {
      for (int64_t size : spec.sizes_bytes) {
        CollectiveConfig c = spec.base;
        c.op = op;
        c.dtype = dtype;
        c.size_bytes = size;
        c.ranks = ranks;
        out.push_back(c);
      }
    }
  }
  return out;
}

}  // namespace stepscope
