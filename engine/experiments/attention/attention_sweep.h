// The attention sweep: the cartesian product of implementations, head dims, sequence lengths
// and precisions, run case by case on the harness.
#pragma once

#include <functional>
#include <vector>

#include "attention/attention_types.h"
#include "experiments/progress.h"

namespace stepscope {

struct AttentionSweepSpec {
  AttentionConfig base;  // batch, heads, causal, steps, device, seed
  std::vector<AttentionImpl> impls{AttentionImpl::naive, AttentionImpl::flash};
  std::vector<int64_t> head_dims{16, 32, 64, 128};
  std::vector<int64_t> seqs{256, 1024, 4096, 8192, 16384};
  std::vector<Precision> precisions{Precision::fp32};
};

// Sequence lengths outermost and implementations innermost, so rows to compare sit together.
std::vector<AttentionConfig> expand(const AttentionSweepSpec& spec);

// Throws ConfigError for a configuration that cannot run here (before any of them runs).
void check_runnable(const AttentionConfig& config);

// Runs each configuration; `on_result` sees each as soon as it ended (OOM and failures too).
void run_attention_sweep(const std::vector<AttentionConfig>& configs, ProgressSink* progress,
                         const CancelFlag* cancel, const std::function<void(const AttentionResult&)>& on_result);

}  // namespace stepscope
