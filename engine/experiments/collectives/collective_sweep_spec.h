// What a collective benchmark run covers: ops x element types x sizes around one base
// configuration. Plain types, so the app's form builds and checks one without LibTorch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/collectives/collective_types.h"
#include "schema/size_text.h"

namespace stepscope {

struct CollectiveSweepSpec {
  CollectiveConfig base;  // backend, iterations, device
  std::vector<CollectiveOp> ops{CollectiveOp::all_reduce};
  std::vector<int64_t> sizes_bytes{1000000, 10000000, 100000000, 1000000000};
  std::vector<Precision> dtypes{Precision::fp32};
};

// Ops outermost, then element types, then sizes (nccl-tests' order within an op). `ranks` is the
// group's size.
std::vector<CollectiveConfig> expand(const CollectiveSweepSpec& spec, int ranks);

}  // namespace stepscope
