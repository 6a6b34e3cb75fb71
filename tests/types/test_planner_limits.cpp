// The planner never prints a saturated or wrapped number as a result. Activations come
// from the unsaturated estimate; every count computed in doubles becomes an int64 through
// checked_count, and inputs too far apart for a double are refused naming their field.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/config_error.h"
#include "model/checked_count.h"
#include "runners/memory_estimate.h"
#include "planner/plan.h"

using namespace stepscope;
using namespace stepscope::planner;

namespace {

std::string refusal(const PlanRequest& r) {
  try {
    make_plan(r);
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

PlanRequest xxl() {
  PlanRequest r;
  r.model = plan_model(kXxlFfnName);
  return r;
}

}  // namespace

TEST(CheckedCount, RefusesWhatInt64CannotHold) {
  EXPECT_EQ(checked_count(9.2e18, "n", "f"), int64_t{9200000000000000000});
  EXPECT_EQ(checked_count(-9223372036854775808.0, "n", "f"), std::numeric_limits<int64_t>::min());
  for (double bad : {9223372036854775808.0, 1e19, -1e19, std::nan(""), std::numeric_limits<double>::infinity()}) {
    try {
      checked_count(bad, "the count", "field_x");
      ADD_FAILURE() << bad << " was counted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "field_x");
      EXPECT_NE(std::string(e.what()).find("the count"), std::string::npos);
    }
  }
  EXPECT_THROW(checked_finite(std::numeric_limits<double>::infinity(), "x", "f"), ConfigError);
  EXPECT_THROW(checked_product(int64_t{1} << 40, int64_t{1} << 30, "x", "f"), ConfigError);
  EXPECT_EQ(checked_product(int64_t{1} << 40, int64_t{1} << 20, "x", "f"), int64_t{1} << 60);
}

// batch x context = 2^48 tokens of a small model: ~4e24 bytes of activations, far past int64.
// The engine's estimate saturates at 2^63 - 1 (9.2 EB) and, divided by 2^48, said 32768 bytes per
// token; the plan carries the real number.
TEST(PlannerLimits, ActivationsPastInt64AreComputedNotSaturated) {
  PlanRequest r;
  r.model = plan_model("small");
  r.batch = kMaxDimension;
  r.context = kMaxDimension;
  BenchConfig c;
  c.model = to_model_config(r.model, r.context);
  c.batch = r.batch;
  c.context = r.context;
  c.precision = r.precisions.activations;
  c.mode = StepMode::train;
  const Plan plan = make_plan(r);
  const double tokens = std::ldexp(1.0, 48);
  EXPECT_EQ(plan.memory.activations.bytes, estimate_activation_bytes(c));
  EXPECT_GT(plan.memory.activations.bytes, 1e24);
  EXPECT_EQ(plan.memory.activations_per_token.bytes, plan.memory.activations.bytes / tokens);
  EXPECT_GT(plan.memory.activations_per_token.bytes, 1e9);
  EXPECT_EQ(plan.memory.devices_80gb, static_cast<int64_t>(std::ceil(plan.memory.single_device.bytes / 80e9)));
}

// --m-x 1e-308 --m-y 1e308: F / (Y M_X) overflows to inf and b* was cast from infinity.
TEST(PlannerLimits, QuotientsPastADoubleAreRefusedNamingTheField) {
  PlanRequest r = xxl();
  r.scaling_book.m_x = 1e-308;
  r.scaling_book.m_y = 1e308;
  EXPECT_EQ(refusal(r), "m_x");
  r = xxl();
  r.scaling_book.c_flops = 1e308;
  r.scaling_book.w_ici_Bps = 1e-308;
  EXPECT_EQ(refusal(r), "c_flops");
}

TEST(PlannerLimits, CountsPastInt64AreRefusedNamingTheField) {
  PlanRequest r = xxl();
  r.scaling_book.m_x = 1e-20;  // b* = 6.7e23 / 16.8: a finite double, but no int64 of tokens
  EXPECT_EQ(refusal(r), "m_x");
  r = xxl();
  r.batch = kMaxDimension;  // 2^24 x 2^20 x 2^20 sequences wrapped to 0
  r.layout.data_parallel = int64_t{1} << 20;
  r.layout.fsdp = int64_t{1} << 20;
  EXPECT_EQ(refusal(r), "batch");
  r = xxl();
  r.all_reduce = AllReduceFit{1e-300, 1e-10, 2, 2};  // w x o underflows: n_b* = sqrt(s / 0)
  EXPECT_EQ(refusal(r), "time_us");
}
