#include "experiments/collectives/collective_sweep.h"

#include "experiments/collectives/collective_case.h"
#include "experiments/harness.h"

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

void run_collective_sweep(const std::vector<CollectiveConfig>& configs, dist::Communicator& comm,
                          ProgressSink* progress, const CancelFlag* cancel,
                          const std::function<void(const CollectiveResult&)>& on_row) {
  const int count = static_cast<int>(configs.size());
  for (int i = 0; i < count; ++i) {
    if (cancel && cancel->is_cancelled()) break;
    const CollectiveConfig& config = configs[static_cast<size_t>(i)];
    CollectiveCase c(config, comm);
    run_case(c, {i, count}, progress, cancel);
    const CollectiveResult row = combine_ranks(c.result(), comm, config.device);
    if (on_row) on_row(row);
  }
}

}  // namespace stepscope
