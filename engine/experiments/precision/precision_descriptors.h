// The precision lab's two experiments as descriptors: accumulate and autocast.
#pragma once

#include "experiments/experiment_descriptor.h"

namespace stepscope::precision {

ExperimentDescriptor accumulate_descriptor();
ExperimentDescriptor autocast_descriptor();

}  // namespace stepscope::precision
