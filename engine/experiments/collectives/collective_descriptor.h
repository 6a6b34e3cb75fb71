// The collective benchmark as a descriptor: its inputs and table; it runs as a job of ranks.
#pragma once

#include "experiments/experiment_descriptor.h"

namespace stepscope {

ExperimentDescriptor collective_descriptor();

}  // namespace stepscope
