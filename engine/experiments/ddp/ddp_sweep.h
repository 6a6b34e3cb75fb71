// The DDP experiments on one rank of a group: every configuration in the same order on every
// rank, each run on the harness and combined across ranks: the row, each rank's own row and
// every rank's overlap picture.
#pragma once

#include <functional>
#include <vector>

#include "distributed/communicator.h"
#include "experiments/ddp/ddp_case.h"
#include "core/progress.h"

namespace stepscope {

// `on_row` sees each row set on every rank; rank 0 usually writes it.
void run_ddp_sweep(const std::vector<DdpConfig>& configs, distributed::Communicator& comm, ProgressSink* progress,
                   const CancelFlag* cancel, const std::function<void(const DdpRowSet&)>& on_row);

}  // namespace stepscope
