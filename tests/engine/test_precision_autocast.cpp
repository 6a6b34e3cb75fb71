#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <torch/torch.h>
#include <torch/version.h>

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "experiments/precision/accumulation.h"  // dtype_name
#include "experiments/precision/autocast_dtypes.h"

namespace stepscope::precision {
namespace {

using Rows = std::vector<TensorDtype>;

ModelConfig small_transformer() {
  auto c = model_preset("tiny");
  c.vocab_size = 101;
  c.context_length = 16;
  return c;
}

// "name:kind:dtype" per row, so a failure prints the whole table.
std::vector<std::string> flatten(const Rows& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.tensor + ":" + to_string(r.kind) + ":" + r.dtype);
  return out;
}

void add(Rows& rows, const std::string& tensor, TensorKind kind, const std::string& dtype) {
  rows.push_back({tensor, kind, dtype});
}

// Expectations from PyTorch's autocast op lists, not from running the code:
// - linear and matmul are on the lower-precision list of both CPU and CUDA autocast;
// - ops on no list (relu, embedding, add, mul, the RMSNorm's arithmetic) run in their
//   inputs' dtype, with ordinary type promotion when those differ;
// - CUDA autocast lists layer_norm under float32; CPU autocast lists it nowhere, so it
//   gets the lower-precision input;
// - cross_entropy is float32 on both (CPU lists cross_entropy_loss; on CUDA its
//   log_softmax and nll_loss are float32 ops);
// - parameters stay float32 (autocast casts copies) and so do their gradients.
Rows expected_toy(const std::string& low, const std::string& ln_output) {
  Rows rows;
  for (const char* p : {"fc1.weight", "ln.weight", "ln.bias", "fc2.weight"}) {
    add(rows, p, TensorKind::parameter, "float32");
  }
  add(rows, "fc1 output", TensorKind::activation, low);
  add(rows, "relu output", TensorKind::activation, low);
  add(rows, "ln output", TensorKind::activation, ln_output);
  add(rows, "fc2 output", TensorKind::activation, low);
  add(rows, "logits", TensorKind::logits, low);
  add(rows, "loss", TensorKind::loss, "float32");
  for (const char* p : {"fc1.weight", "ln.weight", "ln.bias", "fc2.weight"}) {
    add(rows, std::string(p) + ".grad", TensorKind::gradient, "float32");
  }
  return rows;
}

std::vector<std::string> transformer_parameter_names(int64_t layers) {
  std::vector<std::string> names = {"token_embeddings.weight"};
  for (int64_t i = 0; i < layers; ++i) {
    const std::string l = "layers." + std::to_string(i) + ".";
    for (const char* n : {"attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.output_proj", "ffn.w1", "ffn.w2",
                          "ffn.w3", "ln1", "ln2"}) {
      names.push_back(l + n + ".weight");
    }
  }
  names.push_back("ln_final.weight");
  names.push_back("lm_head.weight");
  return names;
}

// The residual stream stays float32: the embedding is a lookup of float32 weights, RMSNorm
// computes in float32 and casts back to its float32 input, and x + (lower-precision block
// output) promotes to float32. Attention and feed-forward end in a projection (linear).
Rows expected_transformer(const std::string& low, int64_t layers) {
  Rows rows;
  const auto names = transformer_parameter_names(layers);
  for (const auto& p : names) add(rows, p, TensorKind::parameter, "float32");
  add(rows, "token_embeddings output", TensorKind::activation, "float32");
  for (int64_t i = 0; i < layers; ++i) {
    const std::string l = "layers." + std::to_string(i);
    add(rows, l + ".ln1 output", TensorKind::activation, "float32");
    add(rows, l + ".attn output", TensorKind::activation, low);
    add(rows, l + ".ln2 output", TensorKind::activation, "float32");
    add(rows, l + ".ffn output", TensorKind::activation, low);
    add(rows, l + " output", TensorKind::activation, "float32");
  }
  add(rows, "ln_final output", TensorKind::activation, "float32");
  add(rows, "lm_head output", TensorKind::activation, low);
  add(rows, "logits", TensorKind::logits, low);
  add(rows, "loss", TensorKind::loss, "float32");
  for (const auto& p : names) add(rows, p + ".grad", TensorKind::gradient, "float32");
  return rows;
}

TEST(PrecisionToyModel, HasTheHandoutsParameters) {
  ToyModel model;
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& p : model->named_parameters()) {
    names.push_back(p.key());
    shapes.push_back(p.value().sizes().vec());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fc1.weight", "ln.weight", "ln.bias", "fc2.weight"}));
  EXPECT_EQ(shapes, (std::vector<std::vector<int64_t>>{{10, kToyInFeatures}, {10}, {10}, {kToyOutFeatures, 10}}));
}

TEST(PrecisionToyModel, ModuleOutputsAreTheForwardPass) {
  torch::manual_seed(3);
  ToyModel model;
  const auto x = torch::randn({6, kToyInFeatures});
  const auto outputs = toy_module_outputs(model, x);
  std::vector<std::string> names;
  for (const auto& o : outputs) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fc1 output", "relu output", "ln output", "fc2 output"}));
  EXPECT_TRUE(torch::equal(outputs.back().value, model->forward(x)));
  EXPECT_TRUE(torch::equal(outputs[1].value, torch::relu(outputs[0].value)));
}

TEST(PrecisionTransformer, ModuleOutputsAreTheForwardPass) {
  torch::manual_seed(5);
  TransformerLM model(small_transformer(), torch::TensorOptions());
  torch::NoGradGuard no_grad;
  const auto tokens = torch::randint(101, {2, 9});
  const auto outputs = transformer_module_outputs(model, tokens);
  ASSERT_EQ(outputs.size(), 1u + 2 * 5 + 2);
  EXPECT_EQ(outputs.front().name, "token_embeddings output");
  EXPECT_EQ(outputs[1].name, "layers.0.ln1 output");
  EXPECT_EQ(outputs[5].name, "layers.0 output");
  EXPECT_EQ(outputs.back().name, "lm_head output");
  // Same ops in the same order as TransformerLMImpl::forward: bit for bit the same logits.
  EXPECT_TRUE(torch::equal(outputs.back().value, model->forward(tokens)));
  const auto block0 = model->layers[0]->as<TransformerBlock>();
  // Block 0: h = x + attn(ln1(x)); out = h + ffn(ln2(h)).
  const auto h = outputs[0].value + outputs[2].value;
  EXPECT_TRUE(torch::equal(outputs[3].value, block0->ln2(h)));
  EXPECT_TRUE(torch::equal(outputs[5].value, h + outputs[4].value));
  EXPECT_TRUE(torch::equal(outputs[1].value, block0->ln1(outputs[0].value)));
}

TEST(PrecisionAutocast, TransformerOnCpuInBfloat16) {
  AutocastSpec spec;
  spec.model = AutocastModel::transformer;
  spec.transformer = small_transformer();
  spec.dtype = c10::kBFloat16;
  spec.batch = 2;
  spec.context = 8;
  EXPECT_EQ(flatten(autocast_dtypes(spec)), flatten(expected_transformer("bfloat16", 2)));
}

TEST(PrecisionAutocast, ToyModelOnCpuInBfloat16) {
  AutocastSpec spec;
  spec.model = AutocastModel::toy;
  spec.dtype = c10::kBFloat16;
#if TORCH_VERSION_MAJOR >= 2
  // LayerNorm's CPU kernel takes a bfloat16 input with float32 weights since 2.0 and
  // returns the input's dtype.
  EXPECT_EQ(flatten(autocast_dtypes(spec)), flatten(expected_toy("bfloat16", "bfloat16")));
#else
  // 1.13's CPU LayerNorm kernel needs its weights in the input's dtype, and CPU autocast
  // casts neither: the handout's model cannot run there, and the error says where.
  try {
    autocast_dtypes(spec);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("ln fails under bfloat16 autocast on cpu", 0), 0u) << message;
    EXPECT_NE(message.find("relu output bfloat16"), std::string::npos) << message;
  }
#endif
}

TEST(PrecisionAutocast, ToyModelOnCudaInFloat16IsTheHandoutsAnswer) {
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  AutocastSpec spec;
  spec.model = AutocastModel::toy;
  spec.dtype = c10::kHalf;
  spec.device = c10::Device(c10::kCUDA, 0);
  EXPECT_EQ(flatten(autocast_dtypes(spec)), flatten(expected_toy("float16", "float32")));
  spec.dtype = c10::kBFloat16;
  EXPECT_EQ(flatten(autocast_dtypes(spec)), flatten(expected_toy("bfloat16", "float32")));
}

TEST(PrecisionAutocast, TransformerOnCuda) {
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  AutocastSpec spec;
  spec.model = AutocastModel::transformer;
  spec.transformer = small_transformer();
  spec.device = c10::Device(c10::kCUDA, 0);
  spec.context = 8;
  for (const auto dtype : {c10::kHalf, c10::kBFloat16}) {
    spec.dtype = dtype;
    EXPECT_EQ(flatten(autocast_dtypes(spec)), flatten(expected_transformer(dtype_name(dtype), 2)));
  }
}

TEST(PrecisionAutocast, RejectsWhatCannotRun) {
  AutocastSpec spec;
  if (!compat::autocast_supported(c10::DeviceType::CPU, c10::kHalf)) {
    spec.dtype = c10::kHalf;
    try {
      autocast_dtypes(spec);
      ADD_FAILURE() << "expected a ConfigError";
    } catch (const ConfigError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("no float16 autocast on cpu"), std::string::npos) << message;
      EXPECT_NE(message.find("bfloat16"), std::string::npos) << message;
      EXPECT_EQ(error.field(), "precision");
    }
  }
  spec = AutocastSpec();
  spec.dtype = c10::kFloat;
  EXPECT_THROW(autocast_dtypes(spec), ConfigError);
  spec = AutocastSpec();
  spec.batch = 0;
  try {
    autocast_dtypes(spec);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.field(), "batch");
  }
  spec = AutocastSpec();
  spec.model = AutocastModel::transformer;
  spec.transformer = small_transformer();
  spec.context = 17;
  EXPECT_THROW(autocast_dtypes(spec), ConfigError);
  spec.transformer.num_heads = 3;
  spec.context = 8;
  EXPECT_THROW(autocast_dtypes(spec), ConfigError);
  if (compat::cuda_device_count() == 0) {
    spec = AutocastSpec();
    spec.device = c10::Device(c10::kCUDA, 0);
    EXPECT_THROW(autocast_dtypes(spec), ConfigError);
  }
}

TEST(PrecisionAutocast, Names) {
  EXPECT_EQ(to_string(TensorKind::parameter), "parameter");
  EXPECT_EQ(to_string(TensorKind::activation), "activation");
  EXPECT_EQ(to_string(TensorKind::logits), "logits");
  EXPECT_EQ(to_string(TensorKind::loss), "loss");
  EXPECT_EQ(to_string(TensorKind::gradient), "gradient");
  EXPECT_EQ(to_string(AutocastModel::toy), "toy");
  EXPECT_EQ(to_string(AutocastModel::transformer), "transformer");
  EXPECT_EQ(dtype_name(c10::kBFloat16), "bfloat16");
  EXPECT_EQ(dtype_name(c10::kHalf), "float16");
  EXPECT_EQ(dtype_name(c10::kFloat), "float32");
}

}  // namespace
}  // namespace stepscope::precision
