// The attention sweep as a descriptor: its inputs, tables and run.
#pragma once

#include "experiments/experiment_descriptor.h"

namespace stepscope {

ExperimentDescriptor attention_descriptor();

}  // namespace stepscope
