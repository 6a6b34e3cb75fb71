// The DDP experiments on one rank of a group: every configuration in the same order on every
// rank, each run on the harness and combined across ranks into one row.
#pragma once

#include <functional>
#include <vector>

#include "dist/communicator.h"
#include "experiments/ddp/ddp_types.h"
#include "experiments/progress.h"

namespace stepscope {

// `on_row` sees each combined row on every rank; rank 0 usually writes it.
void run_ddp_sweep(const std::vector<DdpConfig>& configs, dist::Communicator& comm, ProgressSink* progress,
                   const CancelFlag* cancel, const std::function<void(const DdpResult&)>& on_row);

}  // namespace stepscope
