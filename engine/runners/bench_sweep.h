// A sweep: the cartesian product of models x context lengths x batch sizes x precisions
// x modes, run one configuration after the other into one table.
#pragma once

#include <functional>
#include <vector>

#include "runners/bench_types.h"
#include "runners/progress.h"

namespace stepscope {

struct SweepSpec {
  std::vector<ModelConfig> models;
  std::vector<int64_t> contexts{256};
  std::vector<int64_t> batches{4};
  std::vector<Precision> precisions{Precision::fp32};
  std::vector<StepMode> modes{StepMode::train};
  int warmup_steps = 5;
  int measured_steps = 10;
  std::string device = "cpu";
  uint64_t seed = 0;
  double peak_tflops = 0;
  bool profile_kernels = false;
  bool profile_memory = false;
  int64_t memory_event_limit = 1000000;
};

// Every configuration, in the order models, contexts, batches, precisions, modes (the
// last varies fastest). Each model's context length is set to the run's context.
// Throws ConfigError naming the first invalid configuration, before anything runs.
std::vector<BenchConfig> expand(const SweepSpec& spec);

// Runs each configuration; one that runs out of memory or fails becomes a row with that
// status and the sweep goes on. Stops early when cancelled (the rows so far are kept).
// `on_result` sees each row as soon as it is measured.
std::vector<BenchResult> run_sweep(const std::vector<BenchConfig>& configs, ProgressSink* progress = nullptr,
                                   const CancelFlag* cancel = nullptr,
                                   const std::function<void(const BenchResult&)>& on_result = {});

}  // namespace stepscope
