// The plan as a JSON document (`stepscope-cli plan --json F`): its inputs, then every number
// under a named field, then the formulas by the same names and the table's rows.
//   {"format": "stepscope-plan", "version": 1, "inputs": {...}, "parameters": ...,
//    "master_weights_bytes", "gradients_bytes", "optimizer_state_bytes",
//    "activations_per_token_bytes", "activations_bytes", "total_bytes", "single_device_bytes",
//    "devices_80gb", "devices_80gib", "fsdp_to_fit" (null: none fits), "fsdp_to_fit_bytes",
//    "scaling_book": {"alpha", "per_device_batch", "per_device_batch_tokens", "global_batch_tokens"},
//    "ddp_buckets" (when measured), "formulas": {"parameters": "...", ...}, "table": the "plan" table}
// Sizes are per device, in bytes; counts are numbers.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "planner/plan.h"

namespace stepscope::planner {

nlohmann::json plan_to_json(const Plan& plan);
nlohmann::json request_to_json(const PlanRequest& request);
// Indented, with a final newline.
void write_plan_json(std::ostream& out, const Plan& plan);

}  // namespace stepscope::planner
