// The precision lab as experiment cases on the harness: the accumulation cases, and the
// dtypes autocast gives every tensor of a model. Each returns its schema's table.
#pragma once

#include <string>

#include "core/progress.h"
#include "experiments/experiment_outcome.h"
#include "runners/bench_types.h"
#include "schema/table.h"

namespace stepscope::precision {

struct AutocastRequest {
  std::string model = "toy";  // "toy" or a Transformer preset
  Precision precision = Precision::bf16;
  Device device;  // the CPU by default
  int64_t batch = 4;
  int64_t context = 16;
  uint64_t seed = 0;
};
// Throws ConfigError naming the field ("model", "precision", "device", "batch", "context").
void validate(const AutocastRequest& request);
std::string describe(const AutocastRequest& request);

// Throw ConfigError for what cannot run here (checked before anything runs).
ExperimentOutcome run_accumulation(ProgressSink* progress = nullptr, const CancelFlag* cancel = nullptr);
ExperimentOutcome run_autocast(const AutocastRequest& request, ProgressSink* progress = nullptr,
                        const CancelFlag* cancel = nullptr);

}  // namespace stepscope::precision
