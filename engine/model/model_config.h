// Shape of a reference Transformer LM; plain data, no tensors.
#pragma once

#include "attention/attention_impl.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace stepscope {

// A configuration that cannot run. `field` is the key of the field at fault ("batch",
// "d_model", the schema's column keys), so a form can frame it; empty when no one field is.
class ConfigError : public std::invalid_argument {
 public:
  explicit ConfigError(const std::string& message, std::string field = {})
      : std::invalid_argument(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Every size of a model or a run (width, layers, heads, vocabulary, tokens) is at most this,
// so products of sizes stay far inside 64 bits; real models are well below it.
inline constexpr int64_t kMaxDimension = int64_t{1} << 24;
// And its parameters at most this many: 16 bytes each (weights, gradient, AdamW state) still fit.
inline constexpr int64_t kMaxParameters = int64_t{1} << 58;

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
