// Shape of a reference Transformer LM; plain data, no tensors.
#pragma once

#include "attention/attention_impl.h"
#include "core/size_limits.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope {

struct ModelConfig {
  std::string name = "custom";
  int64_t vocab_size = 10000;
  int64_t context_length = 256;
  int64_t d_model = 768;
  int64_t d_ff = 3072;
  int64_t num_layers = 12;
  int64_t num_heads = 12;
  double rope_theta = 10000.0;
  AttentionImpl attention = AttentionImpl::naive;  // how the model computes attention, not its size

  int64_t d_head() const { return d_model / num_heads; }
};

// The five sizes of the handout, then the tiny presets that run in seconds on a CPU.
std::vector<std::string> model_preset_names();
// Throws ConfigError listing the known names when `name` is not a preset.
ModelConfig model_preset(const std::string& name);

// Throws ConfigError naming the offending field.
void validate(const ModelConfig& config);

// Number of trainable parameters (embeddings, blocks, final norm, untied head); for a model
// validate() refuses, kMaxParameters at most.
int64_t parameter_count(const ModelConfig& config);

std::string describe(const ModelConfig& config);

// The model a run of `context` tokens builds: its rotary tables cover exactly that context.
ModelConfig with_context(ModelConfig config, int64_t context);

}  // namespace stepscope
