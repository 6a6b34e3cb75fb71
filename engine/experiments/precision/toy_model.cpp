#include "experiments/precision/toy_model.h"

namespace stepscope::precision {

ToyModelImpl::ToyModelImpl(int64_t in_features, int64_t out_features) {
  fc1 = register_module("fc1", torch::nn::Linear(torch::nn::LinearOptions(in_features, 10).bias(false)));
  ln = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({10})));
  fc2 = register_module("fc2", torch::nn::Linear(torch::nn::LinearOptions(10, out_features).bias(false)));
  relu = register_module("relu", torch::nn::ReLU());
}

torch::Tensor ToyModelImpl::forward(const torch::Tensor& x) { return fc2(ln(relu(fc1(x)))); }

}  // namespace stepscope::precision
