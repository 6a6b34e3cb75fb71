// Sizes past what 64-bit arithmetic holds are refused by name, never wrapped: a typo in a
// width must not become a negative parameter count or a tiny run.
#include <gtest/gtest.h>

#include <string>

#include "core/config_error.h"
#include "runners/memory_estimate.h"
#include "model/model_config.h"
#include "runners/bench_types.h"

namespace stepscope {
namespace {

std::string field_of_error(const ModelConfig& m) {
  try {
    validate(m);
  } catch (const ConfigError& e) {
    return e.field() + ": " + e.what();
  }
  return "accepted";
}

TEST(SizeLimits, HugeDimensionsAreRefusedByName) {
  ModelConfig m = model_preset("small");
  m.d_model = 1000000000000;
  EXPECT_EQ(field_of_error(m), "d_model: d_model 1000000000000 is too large (at most 16777216)");
  m = model_preset("small");
  m.num_layers = int64_t{1} << 40;
  EXPECT_EQ(field_of_error(m), "layers: number of layers 1099511627776 is too large (at most 16777216)");
  m = model_preset("small");
  m.context_length = 100000000;
  EXPECT_EQ(field_of_error(m), "context: context length 100000000 is too large (at most 16777216)");
}

// Each size within its bound, the product not: 16M layers of width 16M.
TEST(SizeLimits, AModelTooLargeForAnyMachineIsRefused) {
  ModelConfig m = model_preset("small");
  m.d_model = m.d_ff = m.num_layers = kMaxDimension;
  m.num_heads = 2;
  const std::string error = field_of_error(m);
  EXPECT_NE(error.find("more than 288230376151711744 parameters"), std::string::npos) << error;
  EXPECT_EQ(parameter_count(m), kMaxParameters);  // held at the bound, never negative
}

// The largest valid configuration: every estimate is a large positive number, none wrapped.
TEST(SizeLimits, TheEstimateOfTheLargestRunDoesNotWrap) {
  BenchConfig c;
  c.model = model_preset("2.7B");
  c.model.context_length = kMaxDimension;
  c.context = kMaxDimension;
  c.batch = kMaxDimension;
  c.model.vocab_size = kMaxDimension;
  ASSERT_NO_THROW(validate(c));
  const MemoryEstimate e = estimate_memory(c);
  EXPECT_GT(e.activation_bytes, int64_t{1} << 60);
  EXPECT_GE(e.peak_bytes, e.activation_bytes);
  // 2.7B at context 256, batch 4: the estimate of an ordinary run is unchanged by the saturation.
  BenchConfig ordinary;
  ordinary.model = model_preset("2.7B");
  const MemoryEstimate small = estimate_memory(ordinary);
  EXPECT_EQ(small.parameters, parameter_count(ordinary.model));
  EXPECT_GT(small.peak_bytes, 16 * small.parameters);
  EXPECT_LT(small.peak_bytes, 32 * small.parameters);
}

TEST(SizeLimits, BatchPastTheBoundIsRefused) {
  BenchConfig c;
  c.model = model_preset("tiny");
  c.batch = int64_t{1} << 32;
  try {
    validate(c);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "batch");
    EXPECT_NE(std::string(e.what()).find("4294967296 is too large"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stepscope
