// The DDP experiment as a descriptor: its inputs and tables; it runs as a job of ranks.
#pragma once

#include "experiments/experiment_descriptor.h"

namespace stepscope {

ExperimentDescriptor ddp_descriptor();

}  // namespace stepscope
