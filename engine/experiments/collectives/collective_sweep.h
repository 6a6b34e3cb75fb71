// The collective benchmark on one rank of a group: every configuration in the same order on
// every rank, each run on the harness and combined across ranks into one row.
#pragma once

#include <functional>
#include <vector>

#include "distributed/communicator.h"
#include "experiments/collectives/collective_sweep_spec.h"
#include "experiments/collectives/collective_types.h"
#include "core/progress.h"

namespace stepscope {

// `on_row` sees each combined row on every rank; rank 0 usually writes it.
void run_collective_sweep(const std::vector<CollectiveConfig>& configs, distributed::Communicator& comm,
                          ProgressSink* progress, const CancelFlag* cancel,
                          const std::function<void(const CollectiveResult&)>& on_row);

}  // namespace stepscope
