#include <gtest/gtest.h>

#include "core/config_error.h"
#include "model/model_config.h"

namespace stepscope {
namespace {

TEST(ModelConfig, PresetsMatchTheHandoutTable) {
  struct Row { const char* name; int64_t d_model, d_ff, layers, heads; };
  const Row table[] = {{"small", 768, 3072, 12, 12}, {"medium", 1024, 4096, 24, 16}, {"large", 1280, 5120, 36, 20},
                       {"xl", 1600, 6400, 48, 25},    {"2.7B", 2560, 10240, 32, 32}};
  for (const auto& row : table) {
    const auto c = model_preset(row.name);
    EXPECT_EQ(c.d_model, row.d_model) << row.name;
    EXPECT_EQ(c.d_ff, row.d_ff) << row.name;
    EXPECT_EQ(c.num_layers, row.layers) << row.name;
    EXPECT_EQ(c.num_heads, row.heads) << row.name;
    EXPECT_EQ(c.vocab_size, 10000) << row.name;
    EXPECT_NO_THROW(validate(c));
  }
  EXPECT_NO_THROW(validate(model_preset("tiny")));
  EXPECT_NO_THROW(validate(model_preset("mini")));
}

TEST(ModelConfig, UnknownPresetListsTheKnownOnes) {
  try {
    model_preset("huge");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("unknown model 'huge'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("2.7B"), std::string::npos);
  }
}

void expect_rejected(ModelConfig c, const std::string& fragment) {
  try {
    validate(c);
    FAIL() << "expected ConfigError mentioning " << fragment;
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(ModelConfig, InvalidConfigurationsAreRejectedWithTheField) {
  auto c = model_preset("tiny");
  c.num_heads = 3;
  expect_rejected(c, "not divisible by the number of heads");
  c = model_preset("tiny");
  c.d_model = 0;
  expect_rejected(c, "d_model must be positive");
  c = model_preset("tiny");
  c.num_layers = -1;
  expect_rejected(c, "number of layers must be positive");
  c = model_preset("tiny");
  c.vocab_size = 0;
  expect_rejected(c, "vocab size must be positive");
  c = model_preset("tiny");
  c.d_model = 60;  // 4 heads of 15: odd head dimension
  expect_rejected(c, "must be even");
  c = model_preset("tiny");
  c.rope_theta = 0;
  expect_rejected(c, "rope theta");
}

TEST(ModelConfig, ParameterCountOfSmallMatchesHandCount) {
  // 2 x 10000 x 768 (embeddings + head) + 12 x (4 x 768^2 + 3 x 768 x 3072 + 2 x 768) + 768
  EXPECT_EQ(parameter_count(model_preset("small")), 15360000 + 12 * (2359296 + 7077888 + 1536) + 768);
}

}  // namespace
}  // namespace stepscope
