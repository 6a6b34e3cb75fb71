// The step benchmark as a descriptor: its inputs, table and run.
#pragma once

#include "experiments/experiment_descriptor.h"

namespace stepscope {

ExperimentDescriptor bench_descriptor();

}  // namespace stepscope
