#include "runners/bench_sweep.h"

namespace stepscope {

std::vector<BenchConfig> expand(const SweepSpec& spec) {
  if (spec.models.empty()) throw ConfigError("a sweep needs at least one model");
  if (spec.contexts.empty() || spec.batches.empty() || spec.precisions.empty() || spec.modes.empty()) {
    throw ConfigError("a sweep needs at least one context length, batch size, precision and mode");
  }
  std::vector<BenchConfig> configs;
  for (const auto& model : spec.models) {
    for (int64_t context : spec.contexts) {
      for (int64_t batch : spec.batches) {
        for (Precision precision : spec.precisions) {
          for (StepMode mode : spec.modes) {
            BenchConfig c;
            c.model = model;
            c.model.context_length = context;
            c.context = context;
            c.batch = batch;
            c.precision = precision;
            c.mode = mode;
            c.warmup_steps = spec.warmup_steps;
            c.measured_steps = spec.measured_steps;
            c.device = spec.device;
            c.seed = spec.seed;
            c.peak_tflops = spec.peak_tflops;
            c.profile_kernels = spec.profile_kernels;
            c.profile_memory = spec.profile_memory;
            c.memory_event_limit = spec.memory_event_limit;
            try {
              validate(c);
            } catch (const ConfigError& error) {
              throw ConfigError(model.name + ", context " + std::to_string(context) + ": " + error.what());
            }
            configs.push_back(c);
          }
        }
      }
    }
  }
  return configs;
}

}  // namespace stepscope
