// The CS336 "basics" Transformer language model (see shared/reference/model.md).
#pragma once

#include <torch/nn/module.h>

#include <functional>
#include <vector>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include "model/attention.h"
#include "model/layers.h"
#include "model/model_config.h"

namespace stepscope {

// Pre-norm block: h = x + attn(ln1(x)); out = h + ffn(ln2(h)).
class TransformerBlockImpl : public torch::nn::Module {
 public:
  TransformerBlockImpl(const ModelConfig& config, const torch::TensorOptions& options);
  torch::Tensor forward(const torch::Tensor& x, RotaryEmbedding& rope, const torch::Tensor& future_mask);

  CausalSelfAttention attn{nullptr};
  SwiGLU ffn{nullptr};
  RMSNorm ln1{nullptr}, ln2{nullptr};
};
TORCH_MODULE(TransformerBlock);

class TransformerLMImpl : public torch::nn::Module {
 public:
  // Validates the configuration (ConfigError) and initialises the weights on options' device.
  TransformerLMImpl(const ModelConfig& config, const torch::TensorOptions& options);
  // token_ids: int64 [batch, seq] -> logits [batch, seq, vocab].
  torch::Tensor forward(const torch::Tensor& token_ids);
  const ModelConfig& config() const { return config_; }

  // Stages of the forward pass: 0 the embeddings, i + 1 block i, num_layers + 1 the final norm and
  // the head. `hook` runs before each stage (data-parallel training that gathers sharded
  // parameters waits there for the stage's ones); an empty function removes it.
  void set_before_stage(std::function<void(int stage)> hook) { before_stage_ = std::move(hook); }
  // The stage of every parameter, in parameters() order.
  std::vector<int> parameter_stages() const;

  Embedding token_embeddings{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RMSNorm ln_final{nullptr};
  Linear lm_head{nullptr};

 private:
  void enter_stage(int stage) const {
    if (before_stage_) before_stage_(stage);
  }

  ModelConfig config_;
  RotaryEmbedding rope_{nullptr};  // not registered: the reference does not save its tables
  std::function<void(int)> before_stage_;
};
TORCH_MODULE(TransformerLM);

// The forward stage of each of `model`'s parameters, in parameters() order, from the reference's
// names: 0 the embeddings, 1 + i block i, num_layers + 1 the rest (the final norm and the head).
std::vector<int> parameter_stages_by_name(const torch::nn::Module& model, int64_t num_layers);

}  // namespace stepscope
