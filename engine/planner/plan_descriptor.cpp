#include "planner/plan_descriptor.h"

#include "planner/measured_all_reduce.h"
#include "planner/plan.h"
#include "planner/plan_inputs.h"
#include "planner/plan_schema.h"
#include "planner/plan_validate.h"

namespace stepscope::planner {

namespace {

PlanRequest request_of(const schema::InputValues& values) {
  PlanRequest request = plan_request(values);
  if (values.given("allreduce")) request.all_reduce = measured_all_reduce(values.text("allreduce"));
  return request;
}

}  // namespace

ExperimentDescriptor plan_descriptor() {
  ExperimentDescriptor d;
  d.id = "plan";
  d.command = {"plan"};
  d.name = "Planner";
  d.summary = "memory per device, the FSDP size that fits, the compute-bound batch: every number with\nits formula";
  d.inputs = &plan_inputs();
  d.usage.synopsis = "stepscope-cli plan [options]";
  d.usage.description =
      "Plans memory per device before a run, each number with its formula (bytes, GB = 1e9 B, GiB = 2^30 B):\n"
      "master weights, accumulated gradients, optimizer state (AdamW: two moments), activations saved for\n"
      "backward per token and for the batch, how many 80 GB and 80 GiB GPUs one copy takes, the FSDP size\n"
      "that fits --device-memory with --activation-fraction of the activations sharded, and the TPU Scaling\n"
      "Book's per-device batch at which the forward pass is compute-bound.\n";
  d.usage.epilogue =
      "--json F writes named fields (parameters, master_weights_bytes, gradients_bytes, ...), not a run record.\n"
      "\n"
      "Exit status: 0 ok, 2 bad options or inputs.\n";
  d.tables = {plan_schema().table({})};
  d.check = [](const schema::InputValues& values) { validate(plan_request(values)); };
  d.run = [](const schema::InputValues& values, ProgressSink*, const CancelFlag*, const TablePublisher&) {
    const PlanRequest request = request_of(values);
    validate(request);
    return ExperimentOutcome{RunStatus::ok, "", {plan_table(make_plan(request))}};
  };
  d.describe = [](const schema::InputValues& values) { return "plan: " + plan_request(values).model.name; };
  return d;
}

}  // namespace stepscope::planner
