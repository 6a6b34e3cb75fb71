// The seeds' bucket overhead model (ddp_bucketed_benchmarking (b)) against hand-computed
// values: the least-squares fit recovers an exact line, refuses what has no line, the optimum
// is the brute-force minimum, the texts carry their numbers; and its reading of a run's tables.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "core/config_error.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/bucket_overhead_model.h"
#include "experiments/ddp/bucket_overhead_reading.h"
#include "experiments/ddp/ddp_schema.h"
#include "model/model_config.h"

using namespace stepscope;

namespace {

constexpr double kO = 20e-6;  // 20 µs per call
constexpr double kW = 100e9;  // 100 GB/s

std::vector<AllReduceSample> exact_line(std::initializer_list<double> sizes) {
  std::vector<AllReduceSample> out;
  for (double bytes : sizes) out.push_back({bytes, kO + bytes / kW});
  return out;
}

std::string refusal_field(const std::vector<AllReduceSample>& samples) {
  try {
    fit_all_reduce(samples);
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "";
}

CollectiveResult all_reduce(int64_t bytes, double time_us, int ranks = 2, RunStatus status = RunStatus::ok,
                            CollectiveOp op = CollectiveOp::all_reduce) {
  CollectiveResult r;
  r.config.op = op;
  r.config.ranks = ranks;
  r.config.size_bytes = bytes;
  r.status = status;
  r.time_us = time_us;
  return r;
}

DdpResult bucketed(double mb, double exposed_ms) {
  DdpResult r;
  r.config.variant = distributed::DdpVariant::bucketed;
  r.config.bucket_mb = mb;
  r.config.model = model_preset("tiny");
  r.step_ms = 10;
  r.exposed_comm_ms = exposed_ms;
  return r;
}

}  // namespace

TEST(BucketOverheadModel, FitRecoversAnExactLine) {
  const auto fit = fit_all_reduce(exact_line({1e3, 1e6, 1e7, 1e8, 1e8}));
  EXPECT_NEAR(fit.overhead_s, kO, 1e-12);
  EXPECT_NEAR(fit.bandwidth_Bps / kW, 1.0, 1e-9);
  EXPECT_EQ(fit.samples, 5);
  EXPECT_EQ(fit.distinct_sizes, 4);
}

TEST(BucketOverheadModel, FitRefusesWithoutALine) {
  EXPECT_EQ(refusal_field({}), "size_bytes");
  EXPECT_EQ(refusal_field(exact_line({1e6, 1e6, 1e6})), "size_bytes");
  // Time falling with size: no bandwidth.
  EXPECT_EQ(refusal_field({{1e3, 2e-3}, {1e6, 1e-3}}), "time_us");
  EXPECT_EQ(refusal_field({{1e3, 1e-3}, {1e6, 1e-3}}), "time_us");
  try {
    fit_all_reduce(exact_line({1e6}));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("at least 2 distinct sizes"), std::string::npos) << e.what();
  }
}

TEST(BucketOverheadModel, SamplesAreOneGroupsMeasuredAllReduces) {
  const std::vector<CollectiveResult> rows = {
      all_reduce(1000, 30), all_reduce(2000, 40), all_reduce(4000, 50, 4), all_reduce(8000, -1),
      all_reduce(16000, 90, 2, RunStatus::failed), all_reduce(32000, 70, 2, RunStatus::ok, CollectiveOp::all_gather)};
  const auto samples = all_reduce_samples(rows, {CommBackend::gloo, 2, Precision::fp32});
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[1].bytes, 2000);
  EXPECT_DOUBLE_EQ(samples[1].seconds, 40e-6);
  const auto keys = all_reduce_keys(rows);
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[1].ranks, 4);
  EXPECT_EQ(describe(keys[0]), "gloo x2 fp32");
}

TEST(BucketOverheadModel, BucketCountAndPredictedOverhead) {
  EXPECT_EQ(bucket_count(100, 30), 4);
  EXPECT_EQ(bucket_count(100, 25), 4);
  EXPECT_EQ(bucket_count(100, 100), 1);
  EXPECT_EQ(bucket_count(100, 1000), 1);
  EXPECT_EQ(bucket_count(0, 10), 1);
  const AllReduceFit fit{kO, kW, 4, 4};
  // 4 x 20 µs + (400 MB / 4) / 100 GB/s = 80 µs + 1 ms.
  EXPECT_NEAR(predicted_overhead_s(fit, 4e8, 4), 1.08e-3, 1e-15);
  EXPECT_NEAR(predicted_overhead_s(fit, 4e8, 1), 20e-6 + 4e-3, 1e-15);
}

TEST(BucketOverheadModel, OptimumIsTheBruteForceMinimum) {
  const AllReduceFit fit{kO, kW, 4, 4};
  const auto o = bucket_optimum(fit, 4e8);
  // n* = sqrt(4e8 / (1e11 x 2e-5)) = sqrt(200); bucket* = sqrt(4e8 x 1e11 x 2e-5) = sqrt(8e14).
  EXPECT_NEAR(o.buckets, std::sqrt(200.0), 1e-9);
  EXPECT_NEAR(o.bucket_bytes, std::sqrt(8e14), 1e-3);
  EXPECT_NEAR(o.overhead_s, 2 * std::sqrt(8e-8), 1e-15);
  EXPECT_EQ(o.best_buckets, 14);
  for (const auto& [s, w, call] : {std::tuple{4e8, kW, kO}, std::tuple{1.5e9, 2e9, 1e-3}, std::tuple{1e6, 1e9, 5e-3},
                                   std::tuple{3e10, 40e9, 30e-6}}) {
    const AllReduceFit f{call, w, 2, 2};
    int64_t best = 0;
    double best_time = std::numeric_limits<double>::max();
    for (int64_t n = 1; n <= 200000; ++n) {
      const double t = predicted_overhead_s(f, s, n);
      if (t < best_time) best_time = t, best = n;
    }
    const auto opt = bucket_optimum(f, s);
    EXPECT_EQ(opt.best_buckets, best) << s << " " << w << " " << call;
    EXPECT_NEAR(opt.best_overhead_s, best_time, 1e-15);
    EXPECT_LE(opt.overhead_s, best_time * (1 + 1e-12));  // the real optimum is a lower bound
  }
}

TEST(BucketOverheadModel, OptimumRefusesFreeCalls) {
  try {
    bucket_optimum({-1e-6, kW, 2, 2}, 4e8);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "time_us");
  }
}

TEST(BucketOverheadModel, TextsCarryTheirNumbers) {
  const AllReduceFit fit{kO, kW, 5, 4};
  EXPECT_EQ(fit_text(fit), "time = o + bytes/w: o = 20.0 \u00b5s, w = 100 GB/s (least squares over 4 sizes, 5 rows)");
  const std::string overhead = overhead_text(fit, 4e8, 4);
  EXPECT_NE(overhead.find("n_b*o + (s/n_b)/w = 4 x 20.0 \u00b5s + (381 MiB / 4) / 100 GB/s = 80.0 \u00b5s + 1.00 ms = 1.08 ms"),
            std::string::npos)
      << overhead;
  const std::string optimum = optimum_text(fit, 4e8);
  EXPECT_NE(optimum.find("n_b* = sqrt(s/(w*o)) = sqrt(381 MiB / (100 GB/s x 20.0 \u00b5s)) = 14.1"), std::string::npos)
      << optimum;
  EXPECT_NE(optimum.find("sqrt(s*w*o) = sqrt(381 MiB x 100 GB/s x 20.0 \u00b5s) = 27.0 MiB"), std::string::npos) << optimum;
  EXPECT_NE(optimum.find("best whole n_b = 14"), std::string::npos) << optimum;
}

TEST(BucketOverheadReading, ReadsTheRunsTables) {
  // 10 \u00b5s + bytes / 1 GB/s, exact.
  std::vector<CollectiveResult> measured;
  for (int64_t bytes : {1000000, 10000000, 100000000}) measured.push_back(all_reduce(bytes, 10 + bytes * 1e-3));
  measured.push_back(all_reduce(1000000, 5, 2, RunStatus::ok, CollectiveOp::broadcast));
  const auto collectives = collective_schema().table(measured);
  const auto ddp = ddp_schema().table({bucketed(1, 0.5), bucketed(100, 2.5)});
  const auto reading = bucket_overhead_reading(ddp, collectives);
  ASSERT_TRUE(reading.has_value());
  ASSERT_TRUE(reading->fit.has_value());
  EXPECT_NEAR(reading->fit->overhead_s, 10e-6, 1e-12);
  EXPECT_NEAR(reading->fit->bandwidth_Bps, 1e9, 1e-3);
  const double s = static_cast<double>(parameter_count(model_preset("tiny"))) * 4;
  EXPECT_DOUBLE_EQ(reading->param_bytes, s);
  EXPECT_EQ(reading->model, "tiny");
  ASSERT_TRUE(reading->optimum.has_value());
  ASSERT_EQ(reading->rows.size(), 2u);
  const auto& first = reading->rows[0];
  EXPECT_EQ(first.buckets, bucket_count(s, 1 << 20));
  EXPECT_NEAR(first.predicted_ms, (first.buckets * 10e-6 + s / first.buckets / 1e9) * 1e3, 1e-9);
  EXPECT_DOUBLE_EQ(first.measured_ms, 0.5);
  EXPECT_EQ(reading->rows[1].buckets, 1);  // tiny is far below 100 MiB
  const std::string text = reading_text(*reading);
  EXPECT_NE(text.find("All-reduce gloo x2 fp32: time = o + bytes/w: o = 10.0 \u00b5s, w = 1.00 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("bucketed 100 MiB x2: n_b = 1; predicted"), std::string::npos) << text;
  EXPECT_NE(text.find("measured (exposed comm) 2.50 ms"), std::string::npos) << text;
}

TEST(BucketOverheadReading, NeedsAllReduceRows) {
  const auto ddp = ddp_schema().table({bucketed(1, 0.5)});
  EXPECT_FALSE(bucket_overhead_reading(ddp, collective_schema().table({})).has_value());
  EXPECT_FALSE(bucket_overhead_reading(ddp, ddp).has_value());
  // Rows of another world size only: shown, and said.
  const auto four = collective_schema().table({all_reduce(1000, 10, 4), all_reduce(2000, 11, 4)});
  const auto reading = bucket_overhead_reading(ddp, four);
  ASSERT_TRUE(reading.has_value());
  EXPECT_EQ(reading->key.ranks, 4);
  EXPECT_NE(reading->problem.find("no all-reduce rows for gloo x2 fp32"), std::string::npos) << reading->problem;
  ASSERT_EQ(reading->rows.size(), 1u);
  EXPECT_LT(reading->rows[0].predicted_ms, 0);
  EXPECT_EQ(reading->rows[0].formula, "no all-reduce rows for gloo x2 fp32");
  // A fit without bucketed rows: no s, and the text says what is missing.
  const auto alone = bucket_overhead_reading(ddp_schema().table({}), four);
  ASSERT_TRUE(alone.has_value());
  EXPECT_FALSE(alone->optimum.has_value());
  EXPECT_NE(reading_text(*alone).find("No bucketed DDP rows"), std::string::npos) << reading_text(*alone);
}
