// The planner's inputs (stepscope-cli plan, the Planner panel): one declaration each, and
// the request they describe. Defaults are PlanRequest's own (the seeds' accounting, TPU v5p).
#pragma once

#include "planner/plan_request.h"
#include "schema/input_values.h"

namespace stepscope::planner {

const schema::InputSchema& plan_inputs();
// Throws ConfigError naming the field; --allreduce (a file) is left to the caller to read.
PlanRequest plan_request(const schema::InputValues& values);

}  // namespace stepscope::planner
