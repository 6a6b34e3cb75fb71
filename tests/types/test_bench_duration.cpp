// The run panel's duration estimate: the steps' matmul FLOPs at a measured pace, counted by
// hand here (the Transformer's 2 x parameters-per-token rule plus attention's scores).
#include <gtest/gtest.h>

#include "experiments/bench/bench_duration.h"
#include "model/model_config.h"

namespace stepscope {
namespace {

BenchConfig config(int64_t context, StepMode mode) {
  BenchConfig c;
  c.model = model_preset("tiny");
  c.context = context;
  c.batch = 2;
  c.mode = mode;
  c.warmup_steps = 1;
  c.measured_steps = 3;
  return c;
}

// Forward matmul FLOPs of `c` by hand: per token, 2 FLOPs per weight of the layers' projections
// and the LM head, and per layer QK^T and PV over the full context.
double forward_flops(const BenchConfig& c) {
  const double d = static_cast<double>(c.model.d_model), f = static_cast<double>(c.model.d_ff);
  const double layers = static_cast<double>(c.model.num_layers), vocab = static_cast<double>(c.model.vocab_size);
  const double tokens = static_cast<double>(c.batch * c.context);
  const double per_token = layers * (2 * 4 * d * d + 2 * 3 * d * f) + 2 * d * vocab;
  const double attention = layers * 2 * 2 * static_cast<double>(c.context) * d;
  return tokens * (per_token + attention);
}

TEST(BenchDuration, StepsAtThePaceOfTheLastRun) {
  const std::vector<BenchConfig> sweep = {config(64, StepMode::train), config(128, StepMode::forward)};
  const double pace = 2e9;
  const double expected = 4 * 3 * forward_flops(sweep[0]) / pace + 4 * forward_flops(sweep[1]) / pace;
  EXPECT_NEAR(estimated_run_seconds(sweep, pace), expected, expected * 1e-9);
}

TEST(BenchDuration, PaceOfAMeasuredRowOnly) {
  BenchResult r;
  r.flops_per_step = 3e9;
  r.total.mean_ms = 1500;
  ASSERT_TRUE(measured_pace(r).has_value());
  EXPECT_DOUBLE_EQ(*measured_pace(r), 2e9);
  r.status = RunStatus::out_of_memory;
  EXPECT_FALSE(measured_pace(r).has_value());
}

}  // namespace
}  // namespace stepscope
