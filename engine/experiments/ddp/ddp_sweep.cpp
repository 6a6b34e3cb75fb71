#include "experiments/ddp/ddp_sweep.h"

#include "experiments/ddp/ddp_case.h"
#include "experiments/harness.h"

namespace stepscope {

void run_ddp_sweep(const std::vector<DdpConfig>& configs, dist::Communicator& comm, ProgressSink* progress,
                   const CancelFlag* cancel, const std::function<void(const DdpResult&)>& on_row) {
  const int count = static_cast<int>(configs.size());
  for (int i = 0; i < count; ++i) {
    if (cancel && cancel->is_cancelled()) break;
    DdpCase c(configs[static_cast<size_t>(i)], comm);
    run_case(c, {i, count}, progress, cancel);
    const DdpResult row = combine_ranks(c.result(), comm);
    if (on_row) on_row(row);
  }
}

}  // namespace stepscope
