#include "experiments/ddp/ddp_sweep.h"

#include "experiments/harness.h"
#include "runners/device_backend.h"

namespace stepscope {

void run_ddp_sweep(const std::vector<DdpConfig>& configs, distributed::Communicator& comm, ProgressSink* progress,
                   const CancelFlag* cancel, const std::function<void(const DdpRowSet&)>& on_row) {
  const int count = static_cast<int>(configs.size());
  for (int i = 0; i < count; ++i) {
    if (cancel && cancel->is_cancelled()) break;
    const DdpConfig& config = configs[static_cast<size_t>(i)];
    DdpCase c(config, comm);
    run_case(c, {i, count}, progress, cancel);
    const DdpRowSet rows = combine_ranks(c, comm, torch_device(config.device));
    if (on_row) on_row(rows);
  }
}

}  // namespace stepscope
