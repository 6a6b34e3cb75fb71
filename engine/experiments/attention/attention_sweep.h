// The attention sweep, run case by case on the harness (what it covers: attention_sweep_spec.h).
#pragma once

#include <functional>
#include <vector>

#include "attention/attention_types.h"
#include "experiments/attention/attention_sweep_spec.h"
#include "core/progress.h"

namespace stepscope {

// Throws ConfigError for a configuration that cannot run here (before any of them runs).
void check_runnable(const AttentionConfig& config);

// Runs each configuration; `on_result` sees each as soon as it ended (OOM and failures too).
// Neighbouring configurations that differ only in the implementation are one comparison: their
// measured passes run in `rounds` interleaved rounds (interleaved_rounds.h; at most one round per
// pass), and their rows come once the comparison's last round ended. A case that did not end
// well in a round (OOM, failure) sits out the later ones; on cancel, what was measured is kept.
void run_attention_sweep(const std::vector<AttentionConfig>& configs, int rounds, ProgressSink* progress,
                         const CancelFlag* cancel, const std::function<void(const AttentionResult&)>& on_result);

}  // namespace stepscope
