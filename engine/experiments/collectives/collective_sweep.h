// The collective benchmark on one rank of a group: every configuration in the same order on
// every rank, each run on the harness and combined across ranks into one row.
#pragma once

#include <functional>
#include <vector>

#include "dist/communicator.h"
#include "experiments/collectives/collective_types.h"
#include "experiments/progress.h"

namespace stepscope {

struct CollectiveSweepSpec {
  CollectiveConfig base;  // backend, dtype, iterations, device
  std::vector<CollectiveOp> ops{CollectiveOp::all_reduce};
  std::vector<int64_t> sizes_bytes{1000000, 10000000, 100000000, 1000000000};
  std::vector<Precision> dtypes{Precision::fp32};
};

// Ops outermost, then element types, then sizes (nccl-tests' order within an op). `ranks` is the
// group's size.
std::vector<CollectiveConfig> expand(const CollectiveSweepSpec& spec, int ranks);

// `on_row` sees each combined row on every rank; rank 0 usually writes it.
void run_collective_sweep(const std::vector<CollectiveConfig>& configs, dist::Communicator& comm,
                          ProgressSink* progress, const CancelFlag* cancel,
                          const std::function<void(const CollectiveResult&)>& on_row);

}  // namespace stepscope
