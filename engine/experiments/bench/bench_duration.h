// How long a step-benchmark run will take, said before it starts: its steps' matmul FLOPs at
// the pace a run on the same device already achieved. Steps of other sizes are assumed to
// run at the same FLOP rate, which holds roughly once the model is big enough to be
// compute-bound and overstates the time of tiny configurations on a GPU.
#pragma once

#include <optional>
#include <vector>

#include "runners/bench_types.h"

namespace stepscope {

// The FLOP/s a measured configuration achieved; none for a row that did not run.
std::optional<double> measured_pace(const BenchResult& result);

// Seconds for every warm-up and measured step of `configs` at `flops_per_second`.
double estimated_run_seconds(const std::vector<BenchConfig>& configs, double flops_per_second);

}  // namespace stepscope
