// A sweep: the cartesian product of models x context lengths x batch sizes x precisions
// x modes over one base configuration, run one configuration after the other into one table.
#pragma once

#include <functional>
#include <vector>

#include "core/progress.h"
#include "runners/bench_types.h"

namespace stepscope {

struct SweepSpec {
  BenchConfig base;  // everything the lists below do not vary: steps, device, seed, profilers
  std::vector<ModelConfig> models;
  std::vector<int64_t> contexts{256};
  std::vector<int64_t> batches{4};
  std::vector<Precision> precisions{Precision::fp32};
  std::vector<StepMode> modes{StepMode::train};
  std::vector<AttentionImpl> attentions{AttentionImpl::naive};  // the seeds' torch_compile (b): naive against flash
  // eager against fused (torch.compile's counterpart); fused computes attention with flash, so
  // it appears once whatever the attentions.
  std::vector<EngineKind> engines{EngineKind::eager};
  bool check_engines = false;  // --check: each fused row's losses against its eager twin's
};

// Every configuration, in the order models, contexts, batches, precisions, modes, engines,
// attentions (the last varies fastest). Each model's context length is set to the run's context.
// Throws ConfigError naming the first invalid configuration, before anything runs.
std::vector<BenchConfig> expand(const SweepSpec& spec);

// Runs each configuration; one that runs out of memory or fails becomes a row with that
// status and the sweep goes on. Stops early when cancelled (the rows so far are kept).
// `on_result` sees each row as soon as it is measured.
std::vector<BenchResult> run_sweep(const std::vector<BenchConfig>& configs, ProgressSink* progress = nullptr,
                                   const CancelFlag* cancel = nullptr,
                                   const std::function<void(const BenchResult&)>& on_result = {});

}  // namespace stepscope
