// What the planner sizes: a Transformer of the reference (a preset or a custom shape) or the
// seeds' FFN-only model (communication_accounting: blocks of two linear layers, d_model -> d_ff
// -> d_model, no attention, embeddings, norms or head). Plain data, no tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_config.h"

namespace stepscope::planner {

enum class BlockKind { transformer, ffn_only };

std::string to_string(BlockKind kind);  // "transformer", "ffn-only"
// Throws ConfigError (field "blocks") naming the accepted values.
BlockKind parse_block_kind(const std::string& text);

struct PlanModel {
  std::string name = "custom";
  BlockKind blocks = BlockKind::transformer;
  int64_t d_model = 768;
  int64_t d_ff = 3072;
  int64_t layers = 12;   // Transformer blocks, or FFN blocks of two linear layers
  int64_t heads = 12;    // Transformer only
  int64_t vocab = 10000; // Transformer only
};

// The seeds' XXL: d_model 16384, d_ff 53248, 126 FFN-only blocks.
inline constexpr const char* kXxlFfnName = "xxl-ffn";

// The engine's presets (model_preset_names()), then "xxl-ffn".
std::vector<std::string> plan_model_names();
// Throws ConfigError (field "model") listing the known names.
PlanModel plan_model(const std::string& name);
PlanModel plan_model(const ModelConfig& config);
// The engine's model of that shape, for a run of `context` tokens; Transformer shapes only.
ModelConfig to_model_config(const PlanModel& model, int64_t context);

// Throws ConfigError naming the field ("d_model", "d_ff", "layers", "heads", "vocab",
// "context"): a Transformer goes through the engine's validate(ModelConfig).
void validate(const PlanModel& model, int64_t context);

// Trainable parameters: parameter_count(ModelConfig) for a Transformer; 2 x d_model x d_ff
// per block for the FFN-only model.
int64_t parameter_count(const PlanModel& model);
// "parameters = 2 x d_model x d_ff x blocks = 2 x 16384 x 53248 x 126 = 2.20e11"
std::string parameters_text(const PlanModel& model);
// "xxl-ffn (ffn-only, d_model 16384, d_ff 53248, 126 blocks)"
std::string describe(const PlanModel& model);

}  // namespace stepscope::planner
