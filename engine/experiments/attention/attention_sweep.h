// The attention sweep, run case by case on the harness (what it covers: attention_sweep_spec.h).
#pragma once

#include <functional>
#include <vector>

#include "attention/attention_types.h"
#include "experiments/attention/attention_sweep_spec.h"
#include "experiments/progress.h"

namespace stepscope {

// Throws ConfigError for a configuration that cannot run here (before any of them runs).
void check_runnable(const AttentionConfig& config);

// Runs each configuration; `on_result` sees each as soon as it ended (OOM and failures too).
void run_attention_sweep(const std::vector<AttentionConfig>& configs, ProgressSink* progress,
                         const CancelFlag* cancel, const std::function<void(const AttentionResult&)>& on_result);

}  // namespace stepscope
