#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/config_error.h"
#include "io/npy_file.h"
#include "io/state_dict_file.h"
#include "model/adamw.h"
#include "io/checkpoint.h"
#include "model/loss.h"
#include "model/transformer_lm.h"
#include "support/temp_path.h"
#include "test_support.h"

namespace stepscope {
namespace {

using testing::data_path;
using testing::max_abs_difference;
using testing::relative_error;

ModelConfig tiny(int64_t context = 32) {
  auto c = model_preset("tiny");
  c.vocab_size = 101;
  c.context_length = context;
  return c;
}

TEST(TransformerLM, LogitsShape) {
  TransformerLM model(tiny(), torch::TensorOptions());
  const auto logits = model(torch::randint(101, {3, 17}));
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{3, 17, 101}));
}

TEST(TransformerLM, StateDictKeysAreTheReferenceNames) {
  TransformerLM model(tiny(), torch::TensorOptions());
  std::set<std::string> keys;
  for (const auto& p : model->named_parameters()) keys.insert(p.key());
  std::set<std::string> expected = {"token_embeddings.weight", "ln_final.weight", "lm_head.weight"};
  for (int i = 0; i < 2; ++i) {
    const std::string l = "layers." + std::to_string(i) + ".";
    for (const char* name : {"attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.output_proj", "ffn.w1", "ffn.w2",
                             "ffn.w3", "ln1", "ln2"}) {
      expected.insert(l + name + ".weight");
    }
  }
  EXPECT_EQ(keys, expected);
  int64_t numel = 0;
  for (const auto& p : model->parameters()) numel += p.numel();
  EXPECT_EQ(numel, parameter_count(tiny()));
}

TEST(TransformerLM, StagesOfTheForwardPassInOrderWithTheirParameters) {
  TransformerLM model(tiny(), torch::TensorOptions().dtype(torch::kFloat32));
  const int last = static_cast<int>(tiny().num_layers) + 1;
  const auto stages = model->parameter_stages();
  const auto named = model->named_parameters();
  ASSERT_EQ(stages.size(), named.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    const std::string& name = named[i].key();
    if (name.rfind("token_embeddings.", 0) == 0) EXPECT_EQ(stages[i], 0) << name;
    else if (name.rfind("layers.0.", 0) == 0) EXPECT_EQ(stages[i], 1) << name;
    else if (name.rfind("layers.1.", 0) == 0) EXPECT_EQ(stages[i], 2) << name;
    else EXPECT_EQ(stages[i], last) << name;  // ln_final, lm_head
  }
  std::vector<int> entered;
  model->set_before_stage([&](int stage) { entered.push_back(stage); });
  model(torch::zeros({1, 4}, torch::kInt64));
  std::vector<int> expected(static_cast<size_t>(last + 1));
  for (int s = 0; s <= last; ++s) expected[static_cast<size_t>(s)] = s;
  EXPECT_EQ(entered, expected);
  model->set_before_stage({});
  model(torch::zeros({1, 4}, torch::kInt64));
  EXPECT_EQ(entered.size(), expected.size());
}

TEST(TransformerLM, IsCausal) {
  torch::manual_seed(7);
  TransformerLM model(tiny(), torch::TensorOptions());
  torch::NoGradGuard no_grad;
  const auto tokens = torch::randint(101, {2, 20});
  const auto before = model(tokens);
  for (int64_t t : {0, 7, 19}) {
    auto changed = tokens.clone();
    changed.index_put_({torch::indexing::Slice(), t}, (tokens.index({torch::indexing::Slice(), t}) + 1) % 101);
    const auto after = model(changed);
    if (t > 0) {
      EXPECT_TRUE(torch::allclose(before.narrow(1, 0, t), after.narrow(1, 0, t), 0, 0))
          << "a logit before position " << t << " changed";
    }
    EXPECT_FALSE(torch::allclose(before.narrow(1, t, 1), after.narrow(1, t, 1))) << "position " << t;
  }
}

TEST(TransformerLM, RejectsInvalidConfigurationsAndLongInputs) {
  auto bad = tiny();
  bad.num_heads = 5;
  EXPECT_THROW(TransformerLM(bad, torch::TensorOptions()), ConfigError);
  TransformerLM model(tiny(16), torch::TensorOptions());
  EXPECT_THROW(model(torch::randint(101, {1, 17})), c10::Error);
}

TEST(TransformerLM, LossFallsWhenTrainingOnAFixedBatch) {
  torch::manual_seed(8);
  TransformerLM model(tiny(), torch::TensorOptions());
  AdamW optimizer(model->parameters(), AdamWOptions{3e-3});
  const auto tokens = torch::randint(101, {4, 16});
  const auto targets = torch::randint(101, {4, 16});
  double first = 0, last = 0;
  for (int step = 0; step < 40; ++step) {
    optimizer.zero_grad();
    const auto loss = mean_cross_entropy(model(tokens), targets);
    loss.backward();
    optimizer.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_NEAR(first, std::log(101.0), 1.0);  // about uniform at initialisation
  EXPECT_LT(last, 0.5 * first);
}

// Fixtures written by the Python reference (tests/reference/make_tiny_fixture.py): one by
// PyTorch 1.13 (tiny_model), one by PyTorch 2.11 on a GPU machine (tiny_model_torch2), whose
// state_dict pickles carry the OrderedDict `_metadata` that LibTorch 1.13's unpickler rejects.
class PythonReferenceFixture : public ::testing::TestWithParam<std::string> {
 protected:
  std::string fixture(const std::string& name) const { return data_path(GetParam() + "/" + name); }
  void SetUp() override {
    state = load_state_dict_file(fixture("model.pt"));
    std::ifstream config_file(fixture("config.json"));
    const auto json = nlohmann::json::parse(config_file);
    config = infer_model_config(state, json["num_heads"].get<int64_t>());
    config.context_length = json["context_length"].get<int64_t>();
    model = TransformerLM(config, torch::TensorOptions());
    load_state_dict(*model, state);
    tokens = read_npy_file(fixture("tokens.npy"));
    targets = read_npy_file(fixture("targets.npy"));
  }
  StateDict state;
  ModelConfig config;
  TransformerLM model{nullptr};
  torch::Tensor tokens, targets;
};

TEST_P(PythonReferenceFixture, ShapeIsReadFromTheTensors) {
  EXPECT_EQ(config.vocab_size, 97);
  EXPECT_EQ(config.d_model, 32);
  EXPECT_EQ(config.d_ff, 96);
  EXPECT_EQ(config.num_layers, 2);
}

TEST_P(PythonReferenceFixture, LogitsAndLossMatchTheReference) {
  torch::NoGradGuard no_grad;
  const auto logits = model(tokens);
  EXPECT_LT(relative_error(logits, read_npy_file(fixture("logits.npy"))), 1e-5);
  std::ifstream loss_file(fixture("loss.json"));
  const double expected = nlohmann::json::parse(loss_file)["loss_fp64"].get<double>();
  EXPECT_NEAR(mean_cross_entropy(logits, targets).item<double>(), expected, 1e-5);
}

TEST_P(PythonReferenceFixture, OneAdamWStepGivesTheReferenceParameters) {
  const auto loss = mean_cross_entropy(model(tokens), targets);
  loss.backward();
  AdamW optimizer(model->parameters());
  optimizer.step();
  double worst = 0;
  for (const auto& p : model->named_parameters()) {
    const auto expected = read_npy_file(fixture("adamw_fp64/" + p.key() + ".npy"));
    worst = std::max(worst, max_abs_difference(p.value(), expected));
  }
  // One step moves a weight by about lr = 1e-3; fp32 gradients near eps leave a few 1e-6.
  EXPECT_LT(worst, 2e-5);
}

TEST_P(PythonReferenceFixture, SavedCheckpointRoundTrips) {
  const std::string path = testing::temp_path("roundtrip.pt");
  save_state_dict_file(model_state_dict(*model), path);
  TransformerLM copy(config, torch::TensorOptions());
  load_state_dict(*copy, load_state_dict_file(path));
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::equal(model(tokens), copy(tokens)));
}

TEST_P(PythonReferenceFixture, MismatchedCheckpointsAreRefusedWithKeyAndShapes) {
  auto other = config;
  other.d_ff = 64;
  TransformerLM wrong(other, torch::TensorOptions());
  try {
    load_state_dict(*wrong, state);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("layers.0.ffn.w1.weight"), std::string::npos) << message;
    EXPECT_NE(message.find("[96, 32]"), std::string::npos) << message;
    EXPECT_NE(message.find("[64, 32]"), std::string::npos) << message;
  }
  auto missing = state;
  missing.pop_back();
  EXPECT_THROW(load_state_dict(*model, missing), CheckpointError);
  auto extra = state;
  extra.push_back({"layers.9.extra.weight", torch::zeros({2})});
  EXPECT_THROW(load_state_dict(*model, extra), CheckpointError);
}

INSTANTIATE_TEST_SUITE_P(WrittenBy, PythonReferenceFixture, ::testing::Values("tiny_model", "tiny_model_torch2"),
                         [](const auto& info) { return info.param == "tiny_model" ? "PyTorch1" : "PyTorch2"; });

}  // namespace
}  // namespace stepscope
