#include "io/checkpoint.h"

#include <map>
#include <sstream>

#include <torch/torch.h>

#include "io/dtype_overflow.h"

namespace stepscope {

namespace {

std::string shape_of(const at::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

const at::Tensor& find(const StateDict& state, const std::string& key) {
  for (const auto& entry : state) {
    if (entry.name == key) return entry.tensor;
  }
  throw CheckpointError("checkpoint has no '" + key + "'");
}

int64_t count_layers(const StateDict& state) {
  int64_t layers = 0;
  for (const auto& entry : state) {
    const std::string prefix = "layers.";
    if (entry.name.rfind(prefix, 0) != 0) continue;
    const auto dot = entry.name.find('.', prefix.size());
    try {
      layers = std::max<int64_t>(layers, std::stoll(entry.name.substr(prefix.size(), dot - prefix.size())) + 1);
    } catch (const std::exception&) {
      throw CheckpointError("checkpoint key '" + entry.name + "' has no layer number");
    }
  }
  return layers;
}

}  // namespace

ModelConfig infer_model_config(const StateDict& state, int64_t num_heads) {
  const auto& embeddings = find(state, "token_embeddings.weight");
  const auto& w1 = find(state, "layers.0.ffn.w1.weight");
  if (embeddings.dim() != 2) {
    throw CheckpointError("token_embeddings.weight must be 2-D [vocab, d_model], got " + shape_of(embeddings));
  }
  if (w1.dim() != 2) throw CheckpointError("layers.0.ffn.w1.weight must be 2-D [d_ff, d_model], got " + shape_of(w1));
  ModelConfig config;
  config.name = "checkpoint";
  config.vocab_size = embeddings.size(0);
  config.d_model = embeddings.size(1);
  config.d_ff = w1.size(0);
  config.num_layers = count_layers(state);
  config.num_heads = num_heads;
  return config;
}

void load_state_dict(torch::nn::Module& model, const StateDict& state) {
  std::map<std::string, const at::Tensor*> given;
  for (const auto& entry : state) given[entry.name] = &entry.tensor;

  auto expected = model.named_parameters(/*recurse=*/true);
  // Check everything before touching a weight, so a bad file leaves the model as it was.
  for (const auto& item : expected) {
    const auto it = given.find(item.key());
    if (it == given.end()) throw CheckpointError("checkpoint is missing '" + item.key() + "'");
    if (!it->second->sizes().equals(item.value().sizes())) {
      throw CheckpointError("'" + item.key() + "' has shape " + shape_of(*it->second) + " in the checkpoint but " +
                            shape_of(item.value()) + " in the model");
    }
    if (!it->second->is_floating_point()) {
      throw CheckpointError("'" + item.key() + "' is not a floating-point tensor in the checkpoint");
    }
    // A float64 value past float32's range would be inf in the model, and the loss NaN.
    if (const auto value = first_overflow(*it->second, item.value().scalar_type())) {
      throw CheckpointError("'" + item.key() + "' holds " + overflow_text(*value, item.value().scalar_type()) +
                            ": the model's copy would be infinite");
    }
  }
  for (const auto& entry : state) {
    if (expected.find(entry.name) == nullptr) {
      throw CheckpointError("checkpoint has unexpected key '" + entry.name + "' (shape " + shape_of(entry.tensor) +
                            ")");
    }
  }
  torch::NoGradGuard no_grad;
  for (auto& item : expected) item.value().copy_(*given.at(item.key()));
}

StateDict model_state_dict(torch::nn::Module& model) {
  StateDict state;
  for (const auto& item : model.named_parameters(/*recurse=*/true)) {
    state.push_back({item.key(), item.value().detach().to(torch::kCPU).contiguous()});
  }
  return state;
}

}  // namespace stepscope
