// Memory per device of a training step, by formula (seeds' communication_accounting (a), (b)):
// master weights, accumulated gradients and AdamW's two moments, each P x its element size,
// divided by FSDP x TP (the optimizer state also by DP under ZeRO-1); activations saved for backward, a fraction sharded by FSDP, all of
// them split by TP (sequence parallelism). Every number carries its formula with the values in.
#pragma once

#include <cstdint>
#include <string>

#include "planner/plan_request.h"

namespace stepscope::planner {

// A size in bytes and how it was computed: "master weights = 4 B (fp32) x 2.20e11 params = 879 GB".
struct Amount {
  double bytes = 0;
  std::string formula;
};

// The smallest FSDP size at which a device holds its share (seeds' (b)); 0 when none does,
// because the activations FSDP does not shard alone exceed the device.
struct FsdpFit {
  int64_t fsdp = 0;
  double per_device_bytes = 0;  // at that size
  std::string formula;
};

struct MemoryPlan {
  int64_t parameters = 0;
  std::string parameters_formula;
  // Per device, under the request's layout.
  Amount master_weights, gradients, optimizer_state;
  Amount activations_per_token;  // for one token of the batch (its mean, for a Transformer)
  Amount activations;            // for batch x context tokens
  Amount total;
  // The same step on one device, unsharded: what "how many GPUs" counts.
  Amount single_device;
  int64_t devices_80gb = 0;   // ceil(single_device / 80e9): 80 GB as sold (10^9)
  int64_t devices_80gib = 0;  // ceil(single_device / (80 x 2^30)): the seeds' 3276 GiB / 80 = 41
  std::string devices_formula;
  FsdpFit fsdp_to_fit;  // for the request's device memory, TP and activation fraction
};

// Throws ConfigError naming the field of a request it cannot plan (see validate(PlanRequest)).
MemoryPlan plan_memory(const PlanRequest& request);

// Activations saved for backward by the whole model for batch x context tokens, unsharded:
// FFN-only, the input of each linear layer (seeds' (a)): e x blocks x (d_model + d_ff) per
// token; a Transformer, the engine's estimate (model/memory_estimate.h) in the activation
// precision (16-bit: autocast, with norms and softmax kept in fp32).
Amount unsharded_activations(const PlanRequest& request);

}  // namespace stepscope::planner
