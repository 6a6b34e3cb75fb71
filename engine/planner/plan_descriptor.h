// The planner as a descriptor: its inputs and its table (a computation, no measurement).
#pragma once

#include "experiments/experiment_descriptor.h"

namespace stepscope::planner {

ExperimentDescriptor plan_descriptor();

}  // namespace stepscope::planner
