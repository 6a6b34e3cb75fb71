#include "planner/plan_model.h"

#include <sstream>

#include "core/config_error.h"
#include "planner/plan_text.h"

namespace stepscope::planner {

namespace {

// The same range the engine's ModelConfig allows, so a custom shape behaves like a preset.
void require_dimension(int64_t value, const char* name, const char* key) {
  if (value <= 0 || value > kMaxDimension) {
    throw ConfigError(std::string(name) + " must be between 1 and " + std::to_string(kMaxDimension) + " (got " +
                          std::to_string(value) + ")",
                      key);
  }
}

PlanModel xxl_ffn() {
  PlanModel m;
  m.name = kXxlFfnName;
  m.blocks = BlockKind::ffn_only;
  m.d_model = 16384;
  m.d_ff = 53248;
  m.layers = 126;
  m.heads = 1;  // unused: no attention
  m.vocab = 1;  // unused: no embeddings
  return m;
}

}  // namespace

std::string to_string(BlockKind kind) { return kind == BlockKind::ffn_only ? "ffn-only" : "transformer"; }

BlockKind parse_block_kind(const std::string& text) {
  if (text == "transformer") return BlockKind::transformer;
  if (text == "ffn-only") return BlockKind::ffn_only;
  throw ConfigError("unknown block kind '" + text + "' (known: transformer, ffn-only)", "blocks");
}

std::vector<std::string> plan_model_names() {
  auto names = model_preset_names();
  names.emplace_back(kXxlFfnName);
  return names;
}

PlanModel plan_model(const std::string& name) {
  if (name == kXxlFfnName) return xxl_ffn();
  for (const auto& preset : model_preset_names()) {
    if (preset == name) return plan_model(model_preset(name));
  }
  std::string known;
  for (const auto& n : plan_model_names()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError("unknown model '" + name + "' (known: " + known + ", or a custom shape)", "model");
}

PlanModel plan_model(const ModelConfig& c) {
  PlanModel m;
  m.name = c.name;
  m.blocks = BlockKind::transformer;
  m.d_model = c.d_model;
  m.d_ff = c.d_ff;
  m.layers = c.num_layers;
  m.heads = c.num_heads;
  m.vocab = c.vocab_size;
  return m;
}

ModelConfig to_model_config(const PlanModel& m, int64_t context) {
  ModelConfig c;
  c.name = m.name;
  c.d_model = m.d_model;
  c.d_ff = m.d_ff;
  c.num_layers = m.layers;
  c.num_heads = m.heads;
  c.vocab_size = m.vocab;
  c.context_length = context;
  return c;
}

void validate(const PlanModel& m, int64_t context) {
  if (m.blocks == BlockKind::transformer) {
    validate(to_model_config(m, context));
    return;
  }
  require_dimension(m.d_model, "d_model", "d_model");
  require_dimension(m.d_ff, "d_ff", "d_ff");
  require_dimension(m.layers, "number of blocks", "layers");
  require_dimension(context, "context length", "context");
  // 128 bits: three dimensions of up to 2^24 each overflow 64.
  if (2 * static_cast<__int128>(m.d_model) * m.d_ff * m.layers > kMaxParameters) {
    throw ConfigError("the model would have more than " + std::to_string(kMaxParameters) + " parameters", "d_model");
  }
}

int64_t parameter_count(const PlanModel& m) {
  if (m.blocks == BlockKind::transformer) return parameter_count(to_model_config(m, 1));
  const __int128 count = 2 * static_cast<__int128>(m.d_model) * m.d_ff * m.layers;
  return count > kMaxParameters ? kMaxParameters : static_cast<int64_t>(count);
}

std::string parameters_text(const PlanModel& m) {
  std::ostringstream s;
  const double P = static_cast<double>(parameter_count(m));
  if (m.blocks == BlockKind::ffn_only) {
    s << "parameters = 2 x d_model x d_ff x blocks = 2 x " << m.d_model << " x " << m.d_ff << " x " << m.layers
      << " = " << number_text(P);
  } else {
    s << "parameters = 2 x vocab x d_model + layers x (4 d_model^2 + 3 d_model d_ff + 2 d_model) + d_model = 2 x "
      << m.vocab << " x " << m.d_model << " + " << m.layers << " x (4 x " << m.d_model << "^2 + 3 x " << m.d_model
      << " x " << m.d_ff << " + 2 x " << m.d_model << ") + " << m.d_model << " = " << number_text(P);
  }
  return s.str();
}

std::string describe(const PlanModel& m) {
  std::ostringstream s;
  s << m.name << " (" << to_string(m.blocks) << ", d_model " << m.d_model << ", d_ff " << m.d_ff << ", " << m.layers
    << (m.blocks == BlockKind::ffn_only ? " blocks" : " layers");
  if (m.blocks == BlockKind::transformer) s << ", heads " << m.heads << ", vocab " << m.vocab;
  s << ")";
  return s.str();
}

}  // namespace stepscope::planner
