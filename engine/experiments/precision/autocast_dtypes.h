// The handout's benchmarking_mixed_precision question, answered by running it: the dtype of
// every parameter, module output, the logits, the loss and every gradient when the forward
// pass and the loss run under autocast and the backward pass runs after it, as PyTorch's
// mixed-precision recipes do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <torch/types.h>

#include "experiments/precision/precision_results.h"
#include "experiments/precision/toy_model.h"
#include "model/model_config.h"
#include "model/transformer_lm.h"

namespace stepscope::precision {

// TensorDtype and TensorKind (with to_string) are plain data in precision_results.h.

enum class AutocastModel { toy, transformer };
// "toy", "transformer".
std::string to_string(AutocastModel model);

struct AutocastSpec {
  AutocastModel model = AutocastModel::toy;
  ModelConfig transformer = model_preset("tiny");  // used when model == transformer
  c10::ScalarType dtype = c10::kBFloat16;          // kHalf or kBFloat16
  c10::Device device{c10::kCPU};
  int64_t batch = 4;
  int64_t context = 16;  // tokens per sequence; transformer only, at most transformer.context_length
  uint64_t seed = 0;
};

// One forward pass and loss under autocast, then backward outside it. Rows, in order: every
// parameter (state_dict names), every module output in execution order ("fc1 output", ...),
// "logits", "loss", then every parameter's gradient ("fc1.weight.grad"). Throws ConfigError
// when the device cannot autocast to spec.dtype in this LibTorch (1.13 on the CPU: bfloat16
// only), when the device is missing, or for a bad batch, context or model shape.
std::vector<TensorDtype> autocast_dtypes(const AutocastSpec& spec);

struct NamedTensor {
  std::string name;
  torch::Tensor value;
};

// The toy model's forward, one module at a time: "fc1 output", "relu output", "ln output",
// "fc2 output" (the last is what model->forward returns).
std::vector<NamedTensor> toy_module_outputs(ToyModel& model, const torch::Tensor& x);

// TransformerLMImpl::forward op for op, keeping what each module returns: "token_embeddings
// output", per layer "layers.{i}.ln1 output", ".attn output", ".ln2 output", ".ffn output" and
// the block's "layers.{i} output", then "ln_final output" and "lm_head output" (the logits).
std::vector<NamedTensor> transformer_module_outputs(TransformerLM& model, const torch::Tensor& token_ids);

}  // namespace stepscope::precision
