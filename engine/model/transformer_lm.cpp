#include "model/transformer_lm.h"

#include <torch/torch.h>

#include "profiling/range_recorder.h"

namespace stepscope {

TransformerBlockImpl::TransformerBlockImpl(const ModelConfig& c, const torch::TensorOptions& options) {
  attn = register_module("attn", CausalSelfAttention(c.d_model, c.num_heads, c.attention, options));
  ffn = register_module("ffn", SwiGLU(c.d_model, c.d_ff, options));
  ln1 = register_module("ln1", RMSNorm(c.d_model, options));
  ln2 = register_module("ln2", RMSNorm(c.d_model, options));
}

torch::Tensor TransformerBlockImpl::forward(const torch::Tensor& x, RotaryEmbedding& rope,
                                            const torch::Tensor& future_mask) {
  using profiling::ScopedRange;
  torch::Tensor normed, h;
  {
    ScopedRange range("norm");
    normed = ln1(x);
  }
  {
    ScopedRange range("attention");
    h = x + attn->forward(normed, rope, future_mask);
  }
  {
    ScopedRange range("norm");
    normed = ln2(h);
  }
  ScopedRange range("feed-forward");
  return h + ffn(normed);
}

namespace {
const ModelConfig& validated(const ModelConfig& config) {
  validate(config);
  return config;
}
}  // namespace

TransformerLMImpl::TransformerLMImpl(const ModelConfig& config, const torch::TensorOptions& options)
    : config_(validated(config)) {
  token_embeddings = register_module("token_embeddings", Embedding(config_.vocab_size, config_.d_model, options));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < config_.num_layers; ++i) layers->push_back(TransformerBlock(config_, options));
  ln_final = register_module("ln_final", RMSNorm(config_.d_model, options));
  lm_head = register_module("lm_head", Linear(config_.d_model, config_.vocab_size, options));
  rope_ = RotaryEmbedding(config_.context_length, config_.d_head(), config_.rope_theta, options);
}

torch::Tensor TransformerLMImpl::forward(const torch::Tensor& token_ids) {
  TORCH_CHECK(token_ids.dim() == 2, "token ids must have shape (batch, seq), got ", token_ids.sizes());
  const int64_t seq = token_ids.size(1);
  const auto future_mask =
      torch::ones({seq, seq}, torch::TensorOptions().dtype(torch::kBool).device(token_ids.device())).triu(1);
  enter_stage(0);
  auto x = token_embeddings(token_ids);
  int stage = 1;
  for (const auto& layer : *layers) {
    enter_stage(stage++);
    x = layer->as<TransformerBlock>()->forward(x, rope_, future_mask);
  }
  enter_stage(stage);
  {
    profiling::ScopedRange range("norm");
    x = ln_final(x);
  }
  profiling::ScopedRange range("lm head");
  return lm_head(x);
}

std::vector<int> TransformerLMImpl::parameter_stages() const {
  return parameter_stages_by_name(*this, config_.num_layers);
}

std::vector<int> parameter_stages_by_name(const torch::nn::Module& model, int64_t num_layers) {
  const int last = static_cast<int>(num_layers) + 1;
  std::vector<int> stages;
  for (const auto& named : model.named_parameters()) {
    const std::string& name = named.key();
    int stage = last;
    if (name.rfind("token_embeddings.", 0) == 0) {
      stage = 0;
    } else if (name.rfind("layers.", 0) == 0) {
      stage = 1 + std::stoi(name.substr(7, name.find('.', 7) - 7));
    }
    stages.push_back(stage);
  }
  return stages;
}

}  // namespace stepscope
