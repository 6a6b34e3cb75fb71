// The planner's checks, one place for the CLI and the panel: a ConfigError whose field is the
// key of the input at fault, so a form frames it.
#pragma once

#include "planner/plan_request.h"

namespace stepscope::planner {

// Field keys: the model's ("model", "blocks", "d_model", "d_ff", "layers", "heads", "vocab",
// "context"), "batch", "dp", "fsdp", "tp", "activation_fraction", "device_memory", "w_ici",
// "c_flops", "m_x", "m_y", "x", "y", "all_reduce".
void validate(const PlanRequest& request);
// The Scaling Book's inputs alone ("w_ici", "c_flops", "m_x", "m_y", "x", "y").
void validate(const ScalingBookInputs& inputs);

}  // namespace stepscope::planner
