#include <gtest/gtest.h>

#include <torch/torch.h>

#include "model/flops.h"
#include "model/transformer_lm.h"

namespace stepscope {
namespace {

// Independent count: every 2-D weight except the embedding table is one x W^T product
// over batch x context tokens (2 FLOPs per multiply-add), plus the two attention
// products per layer.
double flops_from_weights(TransformerLMImpl& model, int64_t batch, int64_t context) {
  double flops = 0;
  const double tokens = static_cast<double>(batch * context);
  for (const auto& p : model.named_parameters()) {
    if (p.value().dim() != 2 || p.key() == "token_embeddings.weight") continue;
    flops += 2.0 * tokens * static_cast<double>(p.value().numel());
  }
  const auto& c = model.config();
  flops += c.num_layers * 2.0 * (2.0 * batch * context * context * c.d_model);
  return flops;
}

TEST(Flops, ForwardMatchesCountFromTheModelsWeights) {
  for (const char* name : {"tiny", "mini"}) {
    auto config = model_preset(name);
    TransformerLM model(config, torch::TensorOptions());
    EXPECT_DOUBLE_EQ(forward_matmul_flops(config, 3, 40), flops_from_weights(*model, 3, 40)) << name;
  }
}

TEST(Flops, SmallModelHandCount) {
  // small, batch 4, context 256: per layer 2*1024*(4*768^2 + 3*768*3072) + 4*4*256*256*768, head 2*1024*768*10000.
  const double per_layer = 2.0 * 1024 * (4.0 * 768 * 768 + 3.0 * 768 * 3072) + 4.0 * 4 * 256 * 256 * 768;
  const double expected = 12 * per_layer + 2.0 * 1024 * 768 * 10000;
  EXPECT_DOUBLE_EQ(forward_matmul_flops(model_preset("small"), 4, 256), expected);
  EXPECT_DOUBLE_EQ(backward_matmul_flops(model_preset("small"), 4, 256), 2 * expected);
}

}  // namespace
}  // namespace stepscope
