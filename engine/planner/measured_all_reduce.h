// The all-reduce line (time = o + bytes/w) fitted to the all-reduce rows of a run record
// that `stepscope-cli collectives --json F` wrote: what the planner's DDP bucket optimum uses.
#pragma once

#include <string>

#include "experiments/ddp/bucket_overhead_model.h"

namespace stepscope::planner {

// The first backend/world size/type among the record's collective rows. Throws ConfigError
// ("allreduce") for a file that cannot be read or holds no all-reduce rows.
AllReduceFit measured_all_reduce(const std::string& path);

}  // namespace stepscope::planner
