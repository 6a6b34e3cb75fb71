// The TPU Scaling Book's model of FSDP (X) x tensor parallelism (Y) for one FFN of width D, F
// in its forward pass (seeds' communication_accounting (c)). With B the global batch in tokens
// and N = X Y chips, per layer:
//   T_math = 4 B D F / (N C)                     two matmuls of 2 B D F FLOPs each
//   T_FSDP = 4 D F / (Y W_ici M_X)               all-gather of both bf16 matrices over X
//   T_TP   = 4 B D / (X W_ici M_Y)               all-gather in, reduce-scatter out of bf16 activations over Y
// Compute-bound when T_math >= T_FSDP + T_TP; with b = B/N per chip and alpha = C / W_ici:
//   b >= (F / (Y M_X)) / (F / alpha - Y / M_Y),  and never when F / alpha <= Y / M_Y.
#pragma once

#include <cstdint>
#include <string>

#include "planner/plan_request.h"

namespace stepscope::planner {

struct ScalingBookPlan {
  bool compute_bound_possible = false;
  double alpha = 0;                  // C / W_ici, FLOPs per byte
  double per_device_batch = 0;       // b*, tokens: the threshold, real
  int64_t per_device_batch_tokens = 0;  // ceil(b*)
  int64_t global_batch_tokens = 0;      // ceil(b*) x X x Y
  std::string per_device_formula;
  std::string global_formula;
};

// Throws ConfigError (fields "w_ici", "c_flops", "m_x", "m_y", "x", "y") for inputs that are not
// positive.
ScalingBookPlan plan_scaling_book(const ScalingBookInputs& inputs, int64_t d_model, int64_t d_ff);

}  // namespace stepscope::planner
