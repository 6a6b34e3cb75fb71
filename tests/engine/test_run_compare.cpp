// compare: two run records paired by identity, B - A and B / A, and the regression gate.
// Records are built here with hand-picked numbers; every expected figure is worked out by hand
// in the comments (the rule: B - A > P x A and B - A > 2 sqrt(sA²/nA + sB²/nB)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/comparison_json.h"
#include "compare/comparison_schema.h"
#include "compare/kernel_comparison.h"
#include "compare/regression_gate.h"
#include "compare/run_comparison.h"
#include "core/config_error.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "run_compare_records.h"

namespace stepscope::compare {
namespace {

using namespace records;

TEST(RunCompare, SlowerStepBeyondThresholdAndNoiseRegresses) {
  // A 100 ± 1 ms over 10 steps, B 110 ± 1 ms over 10: B - A = 10 > 5% x 100 = 5, and
  // noise = 2 sqrt(1/10 + 1/10) = 2 sqrt(0.2) = 0.894427191 < 10.
  const auto a = record_of({bench_entry(32, 2, 100.0, 1.0, 10)});
  const auto b = record_of({bench_entry(32, 2, 110.0, 1.0, 10)});
  const Comparison c = gated(a, b, slower("5%"));
  const ComparisonRow* step = find_row(c, "total_mean_ms");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->metric, "Step");
  EXPECT_EQ(step->pairing, Pairing::same);
  EXPECT_DOUBLE_EQ(*difference(*step), 10.0);
  EXPECT_DOUBLE_EQ(*ratio(*step), 1.1);
  ASSERT_TRUE(step->noise.has_value());
  EXPECT_NEAR(*step->noise, 0.894427191, 1e-9);
  EXPECT_EQ(step->a_samples, 10);
  EXPECT_EQ(step->verdict, Verdict::regressed);
  EXPECT_EQ(count_regressions(c), 1u);
  EXPECT_EQ(verdict_text(c, slower("5%")).rfind("FAIL: 1 of 1 gated figure regressed", 0), 0u)
      << verdict_text(c, slower("5%"));
  // The top mover is first: the step moved 10%, tokens/s (0 in both) not at all.
  EXPECT_EQ(c.rows.front().metric_key, "total_mean_ms");
}

TEST(RunCompare, DifferenceWithinTheStandardDeviationsIsNoise) {
  // A 100 ± 10 ms, B 108 ± 10 ms, 4 steps each: 8 > 5% x 100, but noise = 2 sqrt(100/4 + 100/4)
  // = 2 sqrt(50) = 14.1421356 > 8: not a regression.
  const auto a = record_of({bench_entry(32, 2, 100.0, 10.0, 4)});
  const auto b = record_of({bench_entry(32, 2, 108.0, 10.0, 4)});
  const Comparison c = gated(a, b, slower("5%"));
  const ComparisonRow* step = find_row(c, "total_mean_ms");
  ASSERT_NE(step, nullptr);
  EXPECT_NEAR(*step->noise, 14.1421356, 1e-6);
  EXPECT_EQ(step->verdict, Verdict::within_noise);
  EXPECT_NE(step->note.find("within the noise"), std::string::npos) << step->note;
  EXPECT_EQ(count_regressions(c), 0u);
  // The same difference with 100 steps a side: noise 2 sqrt(100/100 + 100/100) = 2.83 < 8.
  const Comparison many = gated(record_of({bench_entry(32, 2, 100.0, 10.0, 100)}),
                                record_of({bench_entry(32, 2, 108.0, 10.0, 100)}), slower("5%"));
  EXPECT_NEAR(*find_row(many, "total_mean_ms")->noise, 2 * std::sqrt(2.0), 1e-12);
  EXPECT_EQ(count_regressions(many), 1u);
}

TEST(RunCompare, ThresholdMetExactlyPasses) {
  // No spread: the threshold alone. 105 against 100 at 5% is on it; 105.5 is over it.
  const GateRule rule = slower("5%");
  const Comparison on =
      gated(record_of({bench_entry(32, 2, 100.0, 0.0, 5)}), record_of({bench_entry(32, 2, 105.0, 0.0, 5)}), rule);
  EXPECT_EQ(find_row(on, "total_mean_ms")->verdict, Verdict::ok);
  EXPECT_EQ(count_regressions(on), 0u);
  const Comparison over =
      gated(record_of({bench_entry(32, 2, 100.0, 0.0, 5)}), record_of({bench_entry(32, 2, 105.5, 0.0, 5)}), rule);
  EXPECT_EQ(find_row(over, "total_mean_ms")->verdict, Verdict::regressed);
  // Memory: 1,000,000 -> 1,020,000 bytes is +2% exactly; one byte more is over 2%.
  GateRule memory;
  memory.more_memory = parse_thresholds("2%", "fail-if-more-memory");
  const Comparison mem_on = gated(record_of({bench_entry(32, 2, 100.0, 0.0, 5, 1000000)}),
                                  record_of({bench_entry(32, 2, 100.0, 0.0, 5, 1020000)}), memory);
  const ComparisonRow* peak = find_row(mem_on, "peak_memory_bytes");
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->verdict, Verdict::ok);
  EXPECT_FALSE(peak->noise.has_value());  // a peak is one number: no spread
  const Comparison mem_over = gated(record_of({bench_entry(32, 2, 100.0, 0.0, 5, 1000000)}),
                                    record_of({bench_entry(32, 2, 100.0, 0.0, 5, 1020001)}), memory);
  EXPECT_EQ(find_row(mem_over, "peak_memory_bytes")->verdict, Verdict::regressed);
  // The time gate leaves memory alone, and the memory gate times.
  EXPECT_EQ(find_row(mem_over, "total_mean_ms")->verdict, Verdict::none);
}

TEST(RunCompare, FasterAndSmallerPass) {
  const Comparison c = gated(record_of({bench_entry(32, 2, 100.0, 1.0, 5)}),
                             record_of({bench_entry(32, 2, 50.0, 1.0, 5)}), slower("0%"));
  EXPECT_EQ(find_row(c, "total_mean_ms")->verdict, Verdict::ok);
  EXPECT_DOUBLE_EQ(*difference(*find_row(c, "total_mean_ms")), -50.0);
  EXPECT_EQ(count_regressions(c), 0u);
}

TEST(RunCompare, PerMeasureThresholdsOverrideTheDefault) {
  // Step +8%, Forward +8%: "10%,step=5%" fails the step only; names match label or key, any case.
  auto a = bench_entry(32, 2, 100.0, 0.0, 5);
  auto b = bench_entry(32, 2, 108.0, 0.0, 5);
  a.result.forward = PhaseStats{50.0, 0.0, 50.0, 50.0, 50.0, 5};
  b.result.forward = PhaseStats{54.0, 0.0, 54.0, 54.0, 54.0, 5};
  const Comparison c = gated(record_of({a}), record_of({b}), slower("10%, STEP=5%"));
  EXPECT_EQ(find_row(c, "total_mean_ms")->threshold_percent, 5.0);
  EXPECT_EQ(find_row(c, "total_mean_ms")->verdict, Verdict::regressed);
  EXPECT_EQ(find_row(c, "forward_mean_ms")->threshold_percent, 10.0);
  EXPECT_EQ(find_row(c, "forward_mean_ms")->verdict, Verdict::ok);
  // Only the named measure is gated when no default is given.
  const Comparison only = gated(record_of({a}), record_of({b}), slower("forward_mean_ms=1%"));
  EXPECT_EQ(find_row(only, "total_mean_ms")->verdict, Verdict::none);
  EXPECT_EQ(find_row(only, "forward_mean_ms")->verdict, Verdict::regressed);
}

TEST(RunCompare, ThresholdSyntaxIsCheckedWithTheOptionNamed) {
  const auto message = [](const std::string& text) {
    try {
      parse_thresholds(text, "fail-if-slower");
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "fail-if-slower");
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("5").find("end it with %"), std::string::npos);
  EXPECT_NE(message("-5%").find("cannot be negative"), std::string::npos);
  EXPECT_NE(message("abc%").find("not a percentage"), std::string::npos);
  EXPECT_NE(message("nan%").find("not a percentage"), std::string::npos);
  EXPECT_NE(message("1e999%").find("not a percentage"), std::string::npos);
  EXPECT_NE(message("5%,,step=1%").find("empty item"), std::string::npos);
  EXPECT_NE(message("step=5%,Step=6%").find("given twice"), std::string::npos);
  EXPECT_NE(message("5%,6%").find("two thresholds"), std::string::npos);
  EXPECT_NE(message("=5%").find("names no measure"), std::string::npos);
  const Thresholds t = parse_thresholds("2.5%,step=0%", "fail-if-slower");
  EXPECT_EQ(t.every_percent, 2.5);
  ASSERT_EQ(t.by_measure.size(), 1u);
  EXPECT_EQ(t.by_measure[0].first, "step");
  EXPECT_EQ(t.by_measure[0].second, 0.0);
}

TEST(RunCompare, UnknownMeasureNamesTheOnesThereAre) {
  const auto a = record_of({bench_entry(32, 2, 100.0, 0.0, 5, 1000)});
  const auto b = record_of({bench_entry(32, 2, 100.0, 0.0, 5, 1000)});
  Comparison c = compare_runs(a, b);
  try {
    apply_gate(c, slower("stpe=5%"));
    FAIL() << "accepted an unknown measure";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "fail-if-slower");
    EXPECT_NE(std::string(e.what()).find("no duration measure 'stpe'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Step (total_mean_ms)"), std::string::npos) << e.what();
  }
  try {
    apply_gate(c, slower("peak memory=5%"));
    FAIL() << "accepted a size under --fail-if-slower";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("gate it with --fail-if-more-memory"), std::string::npos) << e.what();
  }
}

TEST(RunCompare, OneChangedSettingPairsAndIsNamed) {
  // A sweep at batch 2 against the same sweep at batch 4: no configuration is the same, each
  // row pairs with the one differing only in batch, and the change is said.
  const auto a = record_of({bench_entry(32, 2, 10.0, 0.0, 5), bench_entry(64, 2, 20.0, 0.0, 5)});
  const auto b = record_of({bench_entry(32, 4, 19.0, 0.0, 5), bench_entry(64, 4, 41.0, 0.0, 5)});
  const Comparison c = compare_runs(a, b);
  EXPECT_EQ(c.changes, "Batch 2 \u2192 4");
  const ComparisonRow* short_ctx = find_row(c, "total_mean_ms", "Context 32,");
  const ComparisonRow* long_ctx = find_row(c, "total_mean_ms", "Context 64,");
  ASSERT_NE(short_ctx, nullptr);
  ASSERT_NE(long_ctx, nullptr);
  EXPECT_EQ(short_ctx->configuration, "tiny, Context 32, Batch 2 \u2192 4, fp32, train, naive, eager");
  EXPECT_EQ(short_ctx->pairing, Pairing::changed);
  EXPECT_EQ(short_ctx->changes, "Batch 2 \u2192 4");
  EXPECT_DOUBLE_EQ(*difference(*short_ctx), 9.0);  // 19 - 10: its own row, not context 64's
  EXPECT_DOUBLE_EQ(*difference(*long_ctx), 21.0);  // 41 - 20
  // Top movers first: 41/20 = 2.05 before 19/10 = 1.9.
  EXPECT_EQ(c.rows.front().configuration, long_ctx->configuration);
}

TEST(RunCompare, RowsOnlyOneSideHasAreListedAndFailOnlyWhenAsked) {
  // Context 32 in both; 64 only in A, 128 only in B.
  const auto a = record_of({bench_entry(32, 2, 10.0, 0.0, 5), bench_entry(64, 2, 20.0, 0.0, 5)});
  const auto b = record_of({bench_entry(32, 2, 10.0, 0.0, 5), bench_entry(128, 2, 40.0, 0.0, 5)});
  Comparison c = gated(a, b, slower("5%"));
  const auto alone = [&](Pairing side) {
    return std::count_if(c.rows.begin(), c.rows.end(), [&](const ComparisonRow& r) { return r.pairing == side; });
  };
  EXPECT_EQ(alone(Pairing::only_a), 1);
  EXPECT_EQ(alone(Pairing::only_b), 1);
  const auto only_a =
      std::find_if(c.rows.begin(), c.rows.end(), [](const ComparisonRow& r) { return r.pairing == Pairing::only_a; });
  EXPECT_NE(only_a->configuration.find("Context 64"), std::string::npos);
  EXPECT_EQ(only_a->note, "B has no such configuration");
  // Listed last, after the paired figures.
  EXPECT_TRUE(c.rows.back().pairing == Pairing::only_a || c.rows.back().pairing == Pairing::only_b);
  EXPECT_EQ(count_regressions(c), 0u);
  GateRule missing = slower("5%");
  missing.fail_if_missing = true;
  apply_gate(c, missing);
  EXPECT_EQ(count_regressions(c), 1u);  // context 64, which B lost; context 128, which B adds, does not fail
  EXPECT_EQ(only_a->verdict, Verdict::regressed);
  EXPECT_EQ(verdict_text(c, missing), "FAIL: 1 gated figure within the rule; B lacks 1 configuration of A");
}

TEST(RunCompare, FailedRowOfBRegressesWhereAsRan) {
  auto b = bench_entry(32, 2, 0.0, 0.0, 0);
  b.result.status = RunStatus::out_of_memory;
  b.result.total = PhaseStats{};
  const Comparison c = gated(record_of({bench_entry(32, 2, 100.0, 1.0, 5)}), record_of({b}), slower("50%"));
  const ComparisonRow* step = find_row(c, "total_mean_ms");
  ASSERT_NE(step, nullptr);
  EXPECT_FALSE(step->b.has_value());
  EXPECT_EQ(step->note, "B ran out of memory");
  EXPECT_EQ(step->verdict, Verdict::regressed);
}

}  // namespace
}  // namespace stepscope::compare
