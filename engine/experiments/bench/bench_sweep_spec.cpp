#include "core/config_error.h"
#include "experiments/bench/bench_sweep.h"

namespace stepscope {

std::vector<BenchConfig> expand(const SweepSpec& spec) {
  if (spec.models.empty()) throw ConfigError("a sweep needs at least one model");
  if (spec.contexts.empty() || spec.batches.empty() || spec.precisions.empty() || spec.modes.empty() ||
      spec.attentions.empty() || spec.engines.empty()) {
    throw ConfigError("a sweep needs at least one context length, batch size, precision, mode, engine and attention");
  }
  std::vector<BenchConfig> configs;
  const auto add = [&](const ModelConfig& model, int64_t context, int64_t batch, Precision precision, StepMode mode,
                       EngineKind engine, AttentionImpl attention) {
    BenchConfig c = spec.base;
    c.model = with_context(model, context);
    c.model.attention = attention;
    c.engine = engine;
    c.context = context;
    c.batch = batch;
    c.precision = precision;
    c.mode = mode;
    try {
      validate(c);
    } catch (const ConfigError& error) {
      throw ConfigError(model.name + ", context " + std::to_string(context) + ": " + error.what(), error.field());
    }
    configs.push_back(c);
  };
  for (const auto& model : spec.models) {
    for (int64_t context : spec.contexts) {
      for (int64_t batch : spec.batches) {
        for (Precision precision : spec.precisions) {
          for (StepMode mode : spec.modes) {
            for (EngineKind engine : spec.engines) {
              if (engine == EngineKind::fused) {
                add(model, context, batch, precision, mode, engine, AttentionImpl::flash);
                continue;
              }
              for (AttentionImpl attention : spec.attentions) {
                add(model, context, batch, precision, mode, engine, attention);
              }
            }
          }
        }
      }
    }
  }
  return configs;
}

}  // namespace stepscope
