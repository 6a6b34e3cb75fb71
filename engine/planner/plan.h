// The planner: everything one request answers, each number with its formula. The CLI's
// `plan` command and the Planner panel call make_plan() and show plan_table() (plan_schema.h);
// `--json` writes plan_to_json() (plan_json.h).
#pragma once

#include <optional>

#include "planner/memory_plan.h"
#include "planner/plan_request.h"
#include "planner/scaling_book.h"

namespace stepscope::planner {

// The seeds' DDP bucket model (experiments/ddp/bucket_overhead_model.h) for this model's
// gradients on the wire: s = communication element size x parameters / TP.
struct DdpBucketPlan {
  double gradient_bytes = 0;  // s
  BucketOptimum optimum;
  std::string formula;  // optimum_text()
};

struct Plan {
  PlanRequest request;
  MemoryPlan memory;
  ScalingBookPlan scaling_book;
  std::optional<DdpBucketPlan> ddp_buckets;  // when the request has a measured all-reduce line
  int64_t devices = 1;               // DP x FSDP x TP
  int64_t global_batch_sequences = 0;  // batch x DP x FSDP: the ranks that see their own data
};

// Throws ConfigError naming the field at fault (validate(PlanRequest)).
Plan make_plan(const PlanRequest& request);

}  // namespace stepscope::planner
