// The Transformer LM of either engine: the reference model (run under autocast) or the fused one
// (its own compute copy, no autocast). From the same seed both have the same parameters, names
// and order, so data-parallel training, checkpoints and optimizers take either.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <torch/nn/module.h>

#include "core/engine_kind.h"
#include "core/precision.h"
#include "model/fused/fused_lm.h"
#include "model/transformer_lm.h"

namespace stepscope {

class EngineModel {
 public:
  // Seeds LibTorch's generator with `seed`, then builds `config` in fp32 masters on `device`.
  EngineModel(EngineKind engine, const ModelConfig& config, Precision precision, uint64_t seed,
              const c10::Device& device);

  torch::nn::Module& module();
  std::vector<at::Tensor> parameters() { return module().parameters(); }
  std::vector<int> parameter_stages() const;
  void set_before_stage(std::function<void(int)> hook);
  // Forward and mean cross-entropy in the precision the model was built for.
  at::Tensor loss(const at::Tensor& inputs, const at::Tensor& targets);
  // The fused model, or nullptr for eager.
  FusedTransformerLM* fused() const { return fused_.get(); }
  // What the fused optimizer's pass refreshes: the compute copy, or nothing where the matmuls read
  // the flat buffer itself (fp32, or eager).
  at::Tensor copy_to_refresh() const;

 private:
  Precision precision_;
  TransformerLM eager_{nullptr};
  std::shared_ptr<FusedTransformerLM> fused_;
};

}  // namespace stepscope
