// The end-to-end step benchmark: w warm-up steps, then n measured steps of one mode,
// synchronising after every step.
#pragma once

#include "runners/bench_types.h"
#include "core/progress.h"

namespace stepscope {

// Never throws for what a run can hit (out of memory, a failing kernel): that becomes
// the result's status and message, and the memory is released. Throws ConfigError for an
// invalid configuration or a device this build or machine lacks. A cancelled run keeps
// the steps it measured.
BenchResult run_step_benchmark(const BenchConfig& config, ProgressSink* progress = nullptr,
                               const CancelFlag* cancel = nullptr);

// Throws ConfigError when `config` cannot run here: an invalid configuration, a device
// this build or machine lacks, a precision the device has no autocast for.
void check_runnable(const BenchConfig& config);

// Fills the summary fields of `result` from its steps and configuration.
void summarize(BenchResult& result);

}  // namespace stepscope
