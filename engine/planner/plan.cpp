#include "planner/plan.h"

#include "attention/attention_memory.h"
#include "model/checked_count.h"
#include "planner/plan_validate.h"

namespace stepscope::planner {

Plan make_plan(const PlanRequest& r) {
  validate(r);
  Plan plan;
  plan.request = r;
  plan.memory = plan_memory(r);
  plan.scaling_book = plan_scaling_book(r.scaling_book, r.model.d_model, r.model.d_ff);
  plan.devices = r.layout.devices();
  // Up to 2^24 x 2^20 x 2^20: past int64, so checked.
  const char* what = "the global batch in sequences (batch x DP x FSDP)";
  plan.global_batch_sequences =
      checked_product(checked_product(r.batch, r.layout.data_parallel, what, "batch"), r.layout.fsdp, what, "batch");
  if (r.all_reduce) {
    DdpBucketPlan ddp;
    ddp.gradient_bytes = static_cast<double>(element_bytes(r.precisions.communication)) *
                         static_cast<double>(plan.memory.parameters) / static_cast<double>(r.layout.tensor_parallel);
    ddp.optimum = bucket_optimum(*r.all_reduce, ddp.gradient_bytes);
    ddp.formula = optimum_text(*r.all_reduce, ddp.gradient_bytes);
    plan.ddp_buckets = ddp;
  }
  return plan;
}

}  // namespace stepscope::planner
