#include "experiments/collectives/collective_sweep.h"

#include "experiments/collectives/collective_case.h"
#include "experiments/harness.h"

namespace stepscope {

void run_collective_sweep(const std::vector<CollectiveConfig>& configs, distributed::Communicator& comm,
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
