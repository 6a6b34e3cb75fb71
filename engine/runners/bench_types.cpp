#include "runners/bench_types.h"

#include "core/config_error.h"

namespace stepscope {

std::string describe(const BenchConfig& c) {
  return c.model.name + " ctx " + std::to_string(c.context) + " b " + std::to_string(c.batch) + " " +
         to_string(c.precision) + " " + to_string(c.mode) +
         (c.model.attention == AttentionImpl::naive ? "" : " " + to_string(c.model.attention)) +
         (c.engine == EngineKind::eager ? "" : " " + to_string(c.engine));
}

bool profiles_in_own_steps(const BenchConfig& c) {
  return (c.profile_kernels || c.profile_operators) && c.device.is_cuda();
}

int total_steps(const BenchConfig& c) {
  return c.warmup_steps + c.measured_steps + (profiles_in_own_steps(c) ? c.measured_steps : 0);
}

bool is_import(const BenchResult& r) { return !r.imported_from.empty(); }

std::string describe(const BenchResult& r) {
  if (!is_import(r)) return describe(r.config);
  const size_t slash = r.imported_from.find_last_of('/');
  const std::string file = slash == std::string::npos ? r.imported_from : r.imported_from.substr(slash + 1);
  return "import: " + file + " (" + to_string(r.config.device) + ")";
}

void validate(const BenchConfig& c) {
  validate(c.model);
  if (c.batch <= 0) throw ConfigError("batch size must be positive (got " + std::to_string(c.batch) + ")", "batch");
  if (c.batch > kMaxDimension) {
    throw ConfigError("batch size " + std::to_string(c.batch) + " is too large (at most " +
                          std::to_string(kMaxDimension) + ")",
                      "batch");
  }
  if (c.context <= 0) throw ConfigError("context length must be positive (got " + std::to_string(c.context) + ")", "context");
  if (c.context > c.model.context_length) {
    throw ConfigError("context length " + std::to_string(c.context) + " is longer than the model's context of " +
                      std::to_string(c.model.context_length),
                      "context");
  }
  if (c.warmup_steps < 0) throw ConfigError("warm-up steps cannot be negative", "warmup");
  if (c.measured_steps <= 0) throw ConfigError("at least one measured step is needed", "steps");
  if (c.peak_tflops < 0) throw ConfigError("peak TFLOP/s cannot be negative", "peak_tflops");
  if (c.memory_event_limit <= 0) throw ConfigError("the memory event limit must be positive", "memory_event_limit");
}

bool runs_backward(StepMode mode) { return mode != StepMode::forward; }
bool runs_optimizer(StepMode mode) { return mode == StepMode::train; }

}  // namespace stepscope
