// The fused engine's Transformer LM: the reference model's mathematics and parameter names
// (checkpoints load and save the seeds' names), laid out for speed. Every parameter is a view
// of one flat fp32 buffer, with q | k | v and w1 | w3 adjacent so each pair or triple is one
// matmul; under mixed precision a flat bf16/fp16 copy of that buffer (refreshed by the fused
// optimizer in its pass) feeds the matmuls, so the forward casts no weight. RMSNorm, SwiGLU, RoPE
// and the LM head with its cross-entropy are fused operations; attention is FlashAttention.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "model/layers.h"
#include "model/model_config.h"

namespace stepscope {

class FusedTransformerLM : public torch::nn::Module {
 public:
  // Validates the configuration (ConfigError) and initialises the weights on options' device
  // exactly as TransformerLM does for the same seed. `compute_dtype`: the matmuls' type (fp32,
  // or bf16/fp16 for mixed precision with fp32 masters).
  FusedTransformerLM(const ModelConfig& config, const torch::TensorOptions& options, c10::ScalarType compute_dtype);

  // Mean cross-entropy of predicting `targets` from `token_ids` (both int64 [batch, seq]), an
  // fp32 scalar; logits are never materialised whole.
  at::Tensor loss(const at::Tensor& token_ids, const at::Tensor& targets);

  const ModelConfig& config() const { return config_; }
  c10::ScalarType compute_dtype() const { return compute_dtype_; }
  // The fp32 masters, all parameters()' storage, and the compute copy (the flat buffer itself
  // in fp32).
  const at::Tensor& flat_parameters() const { return flat_; }
  const at::Tensor& compute_copy() const { return compute_; }
  // Copies the masters into the compute copy: after anything but the fused optimizer changed
  // them (a checkpoint load, a broadcast, another optimizer).
  void refresh_compute_copy();
  // The same from wherever each parameter lives now: an optimizer may have moved parameters
  // into buffers of its own (ZeRO-1 does, with set_data), leaving the flat buffer stale (then,
  // in fp32, the flat buffer is only what the matmuls read). All parameters, or those of
  // forward stage `stage` (parameter_stages()) only; written past autograd's version counters,
  // so a forward pass may refresh each stage just before it runs (ZeRO-1's gathers in the next
  // forward) without invalidating what earlier stages saved.
  void refresh_compute_copy_from_parameters(std::optional<int> stage = std::nullopt);

  // Under mixed precision: the projections' weight gradients written in the compute type into
  // `buffer` (laid out as the compute copy, flat_parameters().numel() elements), as autocast's
  // matmuls make them, instead of cast to fp32 gradients for autograd: 2 bytes a parameter
  // where fp32 gradients take 4, and no cast pass. Their masters then get no gradient from
  // autograd: attach_gradient_buffer() points them at their rows of the buffer, for an optimizer
  // that reads bf16/fp16 gradients (FusedAdamW). Undefined: autograd's fp32 gradients (DDP's
  // hooks need those). Throws std::invalid_argument for a buffer of another type or size.
  void set_gradient_buffer(at::Tensor buffer);
  const at::Tensor& gradient_buffer() const { return grad_buffer_; }
  // Sets each projection master's grad to its rows of the gradient buffer (after a backward).
  void attach_gradient_buffer();
  // With a gradient buffer: called on autograd's thread as backward finishes writing each
  // projection's rows of it (elements first .. first + numel), for DDP to start their
  // all-reduce while backward goes on. Empty: none.
  void set_gradient_rows_listener(std::function<void(int64_t first, int64_t numel)> listener) {
    rows_listener_ = std::move(listener);
  }
  // Where each parameter's gradient lives in a gradient buffer, parameters() order: its first
  // element (the same as in flat_parameters()), and whether backward writes it there itself (the
  // projections, once set_gradient_buffer() has a buffer) or autograd hands it over.
  struct GradientRows {
    int64_t first = 0;
    bool written_by_backward = false;
  };
  std::vector<GradientRows> gradient_rows() const;

  // As TransformerLM: a hook before each stage of the forward, and each parameter's stage.
  void set_before_stage(std::function<void(int stage)> hook) { before_stage_ = std::move(hook); }
  std::vector<int> parameter_stages() const;

 private:
  struct Block {
    at::Tensor ln1, ln2;                   // fp32 masters [d]
    std::vector<at::Tensor> qkv, o, w13, w2;  // masters of each projection, rows in order
    at::Tensor qkv_c, o_c, w13_c, w2_c;    // their compute views
    at::Tensor qkv_g, o_g, w13_g, w2_g;    // their rows of the gradient buffer, if any
    // Each reports its rows to rows_listener_ (fused_linear keeps their addresses: blocks_
    // never grows after construction).
    std::function<void()> qkv_written, o_written, w13_written, w2_written;
  };
  void enter_stage(int stage) const {
    if (before_stage_) before_stage_(stage);
  }

  ModelConfig config_;
  c10::ScalarType compute_dtype_;
  at::Tensor flat_, compute_;
  at::Tensor embedding_, ln_final_, lm_head_, lm_head_c_;
  std::vector<Block> blocks_;
  at::Tensor grad_buffer_;        // set_gradient_buffer()
  std::function<void(int64_t, int64_t)> rows_listener_;
  std::vector<int64_t> offsets_;  // each parameter's first element in flat_, parameters() order
  std::vector<int> stages_;       // parameter_stages()
  RotaryEmbedding rope_{nullptr};
  std::function<void(int)> before_stage_;
};

}  // namespace stepscope
