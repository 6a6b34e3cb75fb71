// The precision lab as experiment cases on the harness: the accumulation cases, and the
// dtypes autocast gives every tensor of a model. Each returns its schema's table.
#pragma once

#include <string>

#include "experiments/progress.h"
#include "runners/bench_types.h"
#include "schema/table.h"

namespace stepscope::precision {

struct LabOutcome {
  RunStatus status = RunStatus::ok;
  std::string message;  // why it failed or ran out of memory
  schema::Table table;  // accumulation_schema() or autocast_schema() rows
  // Kept in the run beside `table` (a DDP run's per-rank rows and overlap picture).
  std::vector<schema::Table> side_tables;
};

struct AutocastRequest {
  std::string model = "toy";  // "toy" or a Transformer preset
  Precision precision = Precision::bf16;
  std::string device = "cpu";
  int64_t batch = 4;
  int64_t context = 16;
  uint64_t seed = 0;
};
// Throws ConfigError naming the field ("model", "precision", "device", "batch", "context").
void validate(const AutocastRequest& request);
std::string describe(const AutocastRequest& request);

// Throw ConfigError for what cannot run here (checked before anything runs).
LabOutcome run_accumulation(ProgressSink* progress = nullptr, const CancelFlag* cancel = nullptr);
LabOutcome run_autocast(const AutocastRequest& request, ProgressSink* progress = nullptr,
                        const CancelFlag* cancel = nullptr);

}  // namespace stepscope::precision
