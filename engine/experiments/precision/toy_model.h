// The handout's ToyModel (benchmarking_mixed_precision), with the parameter names of its
// PyTorch state_dict: fc1.weight, ln.weight, ln.bias, fc2.weight.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

namespace stepscope::precision {

// The handout leaves the sizes open; these are what both sides of the comparison use.
constexpr int64_t kToyInFeatures = 10;
constexpr int64_t kToyOutFeatures = 5;

// relu(fc1(x)) -> ln -> fc2, as in the handout: both linear layers without bias, LayerNorm(10)
// with its affine weight and bias.
class ToyModelImpl : public torch::nn::Module {
 public:
  ToyModelImpl(int64_t in_features = kToyInFeatures, int64_t out_features = kToyOutFeatures);
  torch::Tensor forward(const torch::Tensor& x);

  // Registered in the handout's order so named_parameters() lists them as its state_dict does.
  torch::nn::Linear fc1{nullptr};
  torch::nn::LayerNorm ln{nullptr};
  torch::nn::Linear fc2{nullptr};
  torch::nn::ReLU relu{nullptr};
};
TORCH_MODULE(ToyModel);

}  // namespace stepscope::precision
