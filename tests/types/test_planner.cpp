// The planner against independent values: the seeds' published XXL answers (communication_
// accounting in /work/shared/seeds/004_6e6f4849c7c82a83.txt), checked by hand below; the
// engine's parameter_count() and memory estimate for the presets; refusals name their fields.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/config_error.h"
#include "runners/memory_estimate.h"
#include "planner/plan.h"
#include "planner/plan_json.h"
#include "planner/plan_schema.h"

using namespace stepscope;
using namespace stepscope::planner;

namespace {

constexpr double kGiBytes = 1073741824.0;

// XXL by hand: P = 2 x 16384 x 53248 x 126 = 2^26 x 13 x 252 = 219,848,638,464.
constexpr int64_t kXxlParams = 219848638464;
// bf16 activations per token: 2 B x 126 x (16384 + 53248) = 17,547,264 B (seeds: 0.016 GiB).
constexpr double kXxlActivationsPerToken = 17547264;

PlanRequest xxl() {
  PlanRequest r;
  r.model = plan_model(kXxlFfnName);
  return r;  // defaults: the seeds' precisions, one device, 1 x 1 token, 95 GB, v5p
}

std::string refusal(const PlanRequest& r) {
  try {
    make_plan(r);
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

const PlanLine& line(const std::vector<PlanLine>& lines, PlanQuantity q) {
  for (const auto& l : lines) {
    if (l.quantity == q) return l;
  }
  throw std::runtime_error("no line " + to_string(q));
}

}  // namespace

TEST(Planner, XxlParametersAndFp32StateMatchTheSeeds) {
  const Plan plan = make_plan(xxl());
  EXPECT_EQ(plan.memory.parameters, kXxlParams);  // seeds: 2.2e11
  EXPECT_DOUBLE_EQ(plan.memory.master_weights.bytes, 4.0 * kXxlParams);
  EXPECT_DOUBLE_EQ(plan.memory.gradients.bytes, 4.0 * kXxlParams);
  EXPECT_DOUBLE_EQ(plan.memory.optimizer_state.bytes, 8.0 * kXxlParams);
  // Seeds: "4 * 4 * num_params = 3276 GiB"; exactly, since 16 P = 2^30 x 13 x 252.
  const double state = plan.memory.master_weights.bytes + plan.memory.gradients.bytes + plan.memory.optimizer_state.bytes;
  EXPECT_DOUBLE_EQ(state / kGiBytes, 3276.0);
}

TEST(Planner, XxlActivationsPerTokenInBf16MatchTheSeeds) {
  const Plan plan = make_plan(xxl());
  EXPECT_DOUBLE_EQ(plan.memory.activations_per_token.bytes, kXxlActivationsPerToken);
  EXPECT_NEAR(plan.memory.activations_per_token.bytes / kGiBytes, 0.016, 0.0005);  // seeds: 0.016 GiB
  PlanRequest r = xxl();
  r.batch = 4;
  r.context = 1024;
  EXPECT_DOUBLE_EQ(make_plan(r).memory.activations.bytes, kXxlActivationsPerToken * 4096);
}

TEST(Planner, XxlGpuCountIn80GibIsTheSeeds41And44In80GB) {
  const Plan plan = make_plan(xxl());
  // (3,517,578,215,424 + 17,547,264) B / (80 x 2^30) = 40.95 -> 41 (seeds: "41 H100s");
  // / 80e9 = 43.97 -> 44 in decimal gigabytes.
  EXPECT_EQ(plan.memory.devices_80gib, 41);
  EXPECT_EQ(plan.memory.devices_80gb, 44);
}

TEST(Planner, XxlFsdpToFit95GBHalfTheActivationsSharded) {
  PlanRequest r = xxl();
  // (S + A/2) / (M - A/2) = (3,517,578,215,424 + 8,773,632) / (95e9 - 8,773,632) = 37.03 -> 38.
  r.device_memory_bytes = 95e9;
  Plan plan = make_plan(r);
  EXPECT_EQ(plan.memory.fsdp_to_fit.fsdp, 38);
  EXPECT_LE(plan.memory.fsdp_to_fit.per_device_bytes, 95e9);
  // The seeds' "3276 / n < 95 => n > 34" divides GiB by 95: 95 GiB gives 34.49 -> 35.
  r.device_memory_bytes = 95 * kGiBytes;
  plan = make_plan(r);
  EXPECT_EQ(plan.memory.fsdp_to_fit.fsdp, 35);
  // Applying that layout: every state divided by 35, half the activations too.
  r.layout.fsdp = 35;
  plan = make_plan(r);
  EXPECT_DOUBLE_EQ(plan.memory.master_weights.bytes, 4.0 * kXxlParams / 35);
  EXPECT_DOUBLE_EQ(plan.memory.activations.bytes, kXxlActivationsPerToken * (0.5 + 0.5 / 35));
  EXPECT_LE(plan.memory.total.bytes, 95 * kGiBytes);
}

TEST(Planner, Zero1SplitsOnlyTheOptimizerStateOverDataParallelRanks) {
  PlanRequest r;
  r.model = plan_model("xl");
  r.layout.data_parallel = 2;
  r.layout.shard_optimizer_over_dp = true;
  const Plan plan = make_plan(r);
  const double p = 1998235200;
  EXPECT_DOUBLE_EQ(plan.memory.master_weights.bytes, 4 * p);
  EXPECT_DOUBLE_EQ(plan.memory.gradients.bytes, 4 * p);
  EXPECT_DOUBLE_EQ(plan.memory.optimizer_state.bytes, 8 * p / 2);  // the xl on 2 GPUs
  EXPECT_NE(plan.memory.optimizer_state.formula.find("/ 2 (ZeRO-1-DP)"), std::string::npos)
      << plan.memory.optimizer_state.formula;
}

TEST(Planner, NoFsdpSizeFitsWhenUnshardedActivationsExceedTheDevice) {
  PlanRequest r = xxl();
  r.batch = 16;
  r.context = 1024;  // 16384 tokens x 17.5 MB: 287 GB, half of it never sharded
  const Plan plan = make_plan(r);
  EXPECT_EQ(plan.memory.fsdp_to_fit.fsdp, 0);
  EXPECT_NE(plan.memory.fsdp_to_fit.formula.find("none"), std::string::npos);
}

TEST(Planner, ScalingBookV5pBatchForTheXxlForwardPass) {
  const Plan plan = make_plan(xxl());
  // alpha = 4.6e14 / 1.8e11 = 2555.6; b* = (53248 / (4 x 2)) / (53248 / 2555.6 - 4 / 1)
  //       = 6656 / 16.836 = 395.3 -> 396 tokens per chip; B = 396 x 16 x 4 = 25,344.
  EXPECT_NEAR(plan.scaling_book.alpha, 2555.56, 0.01);
  EXPECT_NEAR(plan.scaling_book.per_device_batch, 395.34, 0.01);
  EXPECT_EQ(plan.scaling_book.per_device_batch_tokens, 396);
  EXPECT_EQ(plan.scaling_book.global_batch_tokens, 25344);
  EXPECT_NE(plan.scaling_book.per_device_formula.find("2556"), std::string::npos) << plan.scaling_book.per_device_formula;
}

TEST(Planner, ScalingBookNeverComputeBoundWhenTheFfnIsNarrow) {
  PlanRequest r = xxl();
  r.model.d_ff = 4096;  // F / alpha = 1.6 < Y / M_Y = 4
  const Plan plan = make_plan(r);
  EXPECT_FALSE(plan.scaling_book.compute_bound_possible);
  EXPECT_EQ(plan.scaling_book.global_batch_tokens, 0);
}

TEST(Planner, PresetParametersEqualTheEngineCount) {
  for (const auto& name : model_preset_names()) {
    EXPECT_EQ(parameter_count(plan_model(name)), parameter_count(model_preset(name))) << name;
  }
  EXPECT_EQ(parameter_count(plan_model("xl")), 1998235200);  // by hand: 2x10000x1600 + 48 x 40,963,200 + 1600
}

TEST(Planner, TransformerActivationsAreTheEngineEstimate) {
  PlanRequest r;
  r.model = plan_model("small");
  r.batch = 4;
  r.context = 256;
  BenchConfig c;
  c.model = model_preset("small");
  c.batch = 4;
  c.context = 256;
  c.precision = Precision::bf16;
  const Plan plan = make_plan(r);
  EXPECT_DOUBLE_EQ(plan.memory.activations.bytes, static_cast<double>(estimate_memory(c).activation_bytes));
  EXPECT_DOUBLE_EQ(plan.memory.activations_per_token.bytes, plan.memory.activations.bytes / 1024);
}

TEST(Planner, FormulasCarryTheirValues) {
  PlanRequest r = xxl();
  r.layout.fsdp = 8;
  const auto lines = plan_lines(make_plan(r));
  // 4 B x 2.20e11 / 8 = 109.9 GB
  EXPECT_EQ(line(lines, PlanQuantity::master_weights).formula,
            "master weights = 4 B (fp32) x 2.20e11 params / 8 (FSDP) = 110 GB");
  EXPECT_EQ(line(lines, PlanQuantity::parameters).formula,
            "parameters = 2 x d_model x d_ff x blocks = 2 x 16384 x 53248 x 126 = 2.20e11");
  EXPECT_NE(line(lines, PlanQuantity::devices_80gib).formula.find("3276 GiB"), std::string::npos);
}

TEST(Planner, RefusalsNameTheirFields) {
  PlanRequest r = xxl();
  r.model.d_model = 0;
  EXPECT_EQ(refusal(r), "d_model");
  r = xxl();
  r.model.layers = -1;
  EXPECT_EQ(refusal(r), "layers");
  r.model = plan_model("small");
  r.model.heads = 7;
  EXPECT_EQ(refusal(r), "heads");
  r = xxl();
  r.batch = 0;
  EXPECT_EQ(refusal(r), "batch");
  r = xxl();
  r.context = 0;
  EXPECT_EQ(refusal(r), "context");
  r = xxl();
  r.layout.fsdp = 0;
  EXPECT_EQ(refusal(r), "fsdp");
  r = xxl();
  r.layout.tensor_parallel = 0;
  EXPECT_EQ(refusal(r), "tp");
  r = xxl();
  r.layout.data_parallel = 0;
  EXPECT_EQ(refusal(r), "dp");
  r = xxl();
  r.layout.fsdp_activation_fraction = 1.5;
  EXPECT_EQ(refusal(r), "activation_fraction");
  r = xxl();
  r.device_memory_bytes = 0;
  EXPECT_EQ(refusal(r), "device_memory");
  r = xxl();
  r.scaling_book.w_ici_Bps = -1;
  EXPECT_EQ(refusal(r), "w_ici");
  r = xxl();
  r.scaling_book.c_flops = std::nan("");
  EXPECT_EQ(refusal(r), "c_flops");
  r = xxl();
  r.scaling_book.m_y = 0;
  EXPECT_EQ(refusal(r), "m_y");
  r = xxl();
  r.scaling_book.x = 0;
  EXPECT_EQ(refusal(r), "x");
  r = xxl();
  r.all_reduce = AllReduceFit{0, 1e9, 2, 2};
  EXPECT_EQ(refusal(r), "all_reduce");
  try {
    plan_model("xxxl");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "model");
    EXPECT_NE(std::string(e.what()).find("xxl-ffn"), std::string::npos);
  }
}

TEST(Planner, DdpBucketOptimumIsTheBucketModels) {
  PlanRequest r;
  r.model = plan_model("xl");
  r.all_reduce = AllReduceFit{20e-6, 100e9, 4, 4};
  const Plan plan = make_plan(r);
  ASSERT_TRUE(plan.ddp_buckets.has_value());
  const double s = 2.0 * 1998235200;  // bf16 gradients on the wire
  EXPECT_DOUBLE_EQ(plan.ddp_buckets->gradient_bytes, s);
  EXPECT_DOUBLE_EQ(plan.ddp_buckets->optimum.bucket_bytes, std::sqrt(s * 100e9 * 20e-6));
  // n_b* = sqrt(s / (w o)) = sqrt(3.996e9 / 2e6) = 44.7: the table's whole count is 45 or 44.
  const auto& row = line(plan_lines(plan), PlanQuantity::ddp_bucket_bytes);
  EXPECT_EQ(*row.value, static_cast<double>(plan.ddp_buckets->optimum.best_buckets));
  EXPECT_TRUE(*row.value == 44 || *row.value == 45);
}

TEST(Planner, JsonHasTheNamedFields) {
  std::ostringstream out;
  write_plan_json(out, make_plan(xxl()));
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j.at("format"), "stepscope-plan");
  EXPECT_EQ(j.at("parameters").get<int64_t>(), kXxlParams);
  EXPECT_DOUBLE_EQ(j.at("master_weights_bytes").get<double>(), 4.0 * kXxlParams);
  EXPECT_DOUBLE_EQ(j.at("gradients_bytes").get<double>(), 4.0 * kXxlParams);
  EXPECT_DOUBLE_EQ(j.at("optimizer_state_bytes").get<double>(), 8.0 * kXxlParams);
  EXPECT_DOUBLE_EQ(j.at("activations_per_token_bytes").get<double>(), kXxlActivationsPerToken);
  EXPECT_DOUBLE_EQ(j.at("activations_bytes").get<double>(), kXxlActivationsPerToken);
  EXPECT_EQ(j.at("fsdp_to_fit").get<int64_t>(), 38);
  EXPECT_EQ(j.at("devices_80gib").get<int64_t>(), 41);
  EXPECT_EQ(j.at("scaling_book").at("global_batch_tokens").get<int64_t>(), 25344);
  EXPECT_EQ(j.at("inputs").at("model").at("name"), "xxl-ffn");
  EXPECT_EQ(j.at("inputs").at("precisions").at("activations"), "bf16");
  EXPECT_EQ(j.at("inputs").at("layout").at("fsdp").get<int64_t>(), 1);
  EXPECT_TRUE(j.at("formulas").contains("master_weights"));
  EXPECT_EQ(j.at("table").at("schema"), "plan");
}

// The plan the measured-side tests compare against.
Plan tiny_plan() {
  PlanRequest r;
  r.model = plan_model("tiny");
  return make_plan(r);
}

TEST(Planner, MeasuredBesidePlanned) {
  const Plan plan = tiny_plan();
  const double p = static_cast<double>(plan.memory.parameters);
  MeasuredState measured;
  measured.parameter_bytes = 4 * p + 512;  // the allocator's rounding
  measured.optimizer_state_bytes = 8 * p;
  const auto table = measured_table(plan, measured);
  ASSERT_EQ(table.rows.size(), 3u);
  const int diff = table.column_index("difference_bytes");
  EXPECT_DOUBLE_EQ(*schema::number_of(table.rows[0][static_cast<size_t>(diff)]), 512);
  EXPECT_TRUE(schema::is_missing(table.rows[1][static_cast<size_t>(diff)]));  // gradients not measured
  EXPECT_DOUBLE_EQ(*schema::number_of(table.rows[2][static_cast<size_t>(diff)]), 0);
  // Without tensor sizes the rounding is not known.
  EXPECT_TRUE(schema::is_missing(table.rows[0][static_cast<size_t>(table.column_index("allocator_rounding_bytes"))]));
}

TEST(Planner, MeasuredSplitsTheAllocatorsRoundingFromTheTensors) {
  const Plan plan = tiny_plan();
  const double p = static_cast<double>(plan.memory.parameters);
  MeasuredState measured;
  measured.parameter_bytes = 4 * p + 1536;
  measured.parameter_tensor_bytes = 4 * p;
  measured.gradient_bytes = 4 * p + 2048;
  measured.gradient_tensor_bytes = 4 * p + 100;  // a tensor the plan does not count
  const auto table = measured_table(plan, measured);
  const auto cell = [&](size_t row, const char* column) {
    return schema::number_of(table.rows[row][static_cast<size_t>(table.column_index(column))]);
  };
  EXPECT_DOUBLE_EQ(*cell(0, "tensor_bytes"), 4 * p);
  EXPECT_DOUBLE_EQ(*cell(0, "allocator_rounding_bytes"), 1536);
  EXPECT_DOUBLE_EQ(*cell(0, "unexplained_bytes"), 0);
  EXPECT_DOUBLE_EQ(*cell(1, "allocator_rounding_bytes"), 1948);
  EXPECT_DOUBLE_EQ(*cell(1, "unexplained_bytes"), 100);
  EXPECT_FALSE(cell(2, "tensor_bytes").has_value());  // optimizer state not measured
}
