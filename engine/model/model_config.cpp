#include "model/model_config.h"

#include "core/config_error.h"

#include <cmath>
#include <sstream>

namespace stepscope {

namespace {

struct Preset {
  const char* name;
  int64_t d_model, d_ff, num_layers, num_heads;
};

// The handout's sizes; "tiny" and "mini" keep the same vocabulary but run on a laptop CPU.
constexpr Preset kPresets[] = {
    {"small", 768, 3072, 12, 12},  {"medium", 1024, 4096, 24, 16}, {"large", 1280, 5120, 36, 20},
    {"xl", 1600, 6400, 48, 25},    {"2.7B", 2560, 10240, 32, 32},  {"tiny", 64, 256, 2, 4},
    {"mini", 256, 1024, 4, 8},
};

// A checked range: past it, sizes multiplied together leave 64 bits, and no device holds them.
void require_positive(int64_t value, const char* name, const char* key) {
  if (value <= 0) {
    throw ConfigError(std::string(name) + " must be positive (got " + std::to_string(value) + ")", key);
  }
  if (value > kMaxDimension) {
    throw ConfigError(std::string(name) + " " + std::to_string(value) + " is too large (at most " +
                          std::to_string(kMaxDimension) + ")",
                      key);
  }
}

// Exact, in 128 bits: validate() refuses what would not fit the 64 bits every caller uses.
__int128 exact_parameter_count(const ModelConfig& c) {
  const __int128 d = c.d_model, ff = c.d_ff;
  const __int128 per_layer = 4 * d * d + 3 * d * ff + 2 * d;  // q, k, v, output; w1, w2, w3; ln1, ln2
  return 2 * static_cast<__int128>(c.vocab_size) * d + c.num_layers * per_layer + d;  // embeddings, head, final norm
}

}  // namespace

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& preset : kPresets) names.emplace_back(preset.name);
  return names;
}

ModelConfig model_preset(const std::string& name) {
  for (const auto& preset : kPresets) {
    if (name == preset.name) {
      ModelConfig config;
      config.name = preset.name;
      config.d_model = preset.d_model;
      config.d_ff = preset.d_ff;
      config.num_layers = preset.num_layers;
      config.num_heads = preset.num_heads;
      return config;
    }
  }
  std::string known;
  for (const auto& preset : kPresets) known += std::string(known.empty() ? "" : ", ") + preset.name;
  throw ConfigError("unknown model '" + name + "' (known: " + known + ")");
}

void validate(const ModelConfig& c) {
  require_positive(c.vocab_size, "vocab size", "vocab");
  require_positive(c.context_length, "context length", "context");
  require_positive(c.d_model, "d_model", "d_model");
  require_positive(c.d_ff, "d_ff", "d_ff");
  require_positive(c.num_layers, "number of layers", "layers");
  require_positive(c.num_heads, "number of heads", "heads");
  if (c.d_model % c.num_heads != 0) {
    throw ConfigError("d_model (" + std::to_string(c.d_model) + ") is not divisible by the number of heads (" +
                      std::to_string(c.num_heads) + ")",
                      "heads");
  }
  if (c.d_head() % 2 != 0) {
    throw ConfigError("the head dimension d_model/heads = " + std::to_string(c.d_head()) +
                      " must be even for rotary embeddings",
                      "heads");
  }
  if (exact_parameter_count(c) > kMaxParameters) {
    throw ConfigError("the model would have more than " + std::to_string(kMaxParameters) +
                          " parameters, more than the memory of any machine",
                      "d_model");
  }
  // Below 1 the rotation frequencies grow past every float and the loss becomes NaN.
  if (!(c.rope_theta > 1.0) || !std::isfinite(c.rope_theta)) {
    std::ostringstream got;
    got << c.rope_theta;
    throw ConfigError("rope theta must be a finite number above 1 (got " + got.str() + "; the reference uses 10000)",
                      "rope_theta");
  }
}

int64_t parameter_count(const ModelConfig& c) {
  const __int128 count = exact_parameter_count(c);
  return count > kMaxParameters ? kMaxParameters : static_cast<int64_t>(count);
}

std::string describe(const ModelConfig& c) {
  std::ostringstream out;
  out << c.name << " (d_model " << c.d_model << ", d_ff " << c.d_ff << ", layers " << c.num_layers << ", heads "
      << c.num_heads << ", vocab " << c.vocab_size << ")";
  return out.str();
}

ModelConfig with_context(ModelConfig config, int64_t context) {
  config.context_length = context;
  return config;
}

}  // namespace stepscope
