// compare: two run records paired by identity, B - A and B / A, kernel top movers, and the
// regression gate. Records are built here with hand-picked numbers; every expected figure is
// worked out by hand in the comments (the rule: B - A > P x A and B - A > 2 sqrt(sA²/nA + sB²/nB)).
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

namespace stepscope::compare {
namespace {

// A bench configuration of the tiny model whose step took `mean_ms` ± `std_ms` over `steps`.
RunRecordEntry bench_entry(int64_t context, int64_t batch, double mean_ms, double std_ms, int steps,
                           int64_t peak_bytes = -1) {
  RunRecordEntry e;
  BenchResult& r = e.result;
  r.config.model = model_preset("tiny");
  r.config.context = context;
  r.config.batch = batch;
  r.config.mode = StepMode::train;
  r.steps.assign(static_cast<size_t>(steps), StepTiming{});
  r.total = PhaseStats{mean_ms, std_ms, mean_ms, mean_ms, mean_ms, steps};
  r.peak_memory_bytes = peak_bytes;
  return e;
}

RunRecord record_of(std::vector<RunRecordEntry> entries) {
  RunRecord record;
  record.entries = std::move(entries);
  return record;
}

const ComparisonRow* find_row(const Comparison& c, const std::string& key, const std::string& configuration_part = "") {
  for (const auto& r : c.rows) {
    if (r.metric_key == key && r.configuration.find(configuration_part) != std::string::npos) return &r;
  }
  return nullptr;
}

GateRule slower(const std::string& text) {
  GateRule rule;
  rule.slower = parse_thresholds(text, "fail-if-slower");
  return rule;
}

Comparison gated(const RunRecord& a, const RunRecord& b, const GateRule& rule) {
  Comparison c = compare_runs(a, b);
  apply_gate(c, rule);
  return c;
}

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

profiling::KernelStats kernel(const std::string& name, int64_t total_ns) {
  profiling::KernelStats k;
  k.name = name + "<float>(...)";
  k.short_name = name;
  k.total_ns = total_ns;
  k.instances = 1;
  return k;
}

std::shared_ptr<const profiling::KernelProfile> profile(std::vector<profiling::KernelStats> kernels) {
  auto p = std::make_shared<profiling::KernelProfile>();
  p->ranges.push_back({"measured window", 0, std::move(kernels), {}});
  return p;
}

TEST(RunCompare, KernelTotalsTopMoversFirst) {
  // gemm 1000 -> 1300 (+300), softmax 500 -> 450 (-50), copy 100 -> none (moves 100),
  // new_kernel none -> 200 (+200): by |B - A| gemm, new_kernel, copy, softmax.
  auto a = bench_entry(32, 2, 10.0, 0.0, 5);
  auto b = bench_entry(32, 2, 10.0, 0.0, 5);
  a.result.kernel_profile = profile({kernel("gemm", 1000), kernel("softmax", 500), kernel("copy", 100)});
  b.result.kernel_profile = profile({kernel("gemm", 1300), kernel("new_kernel", 200), kernel("softmax", 450)});
  const Comparison c = compare_runs(record_of({a}), record_of({b}));
  std::vector<std::string> order;
  for (const auto& r : c.rows) {
    if (r.table == kKernelTotals) order.push_back(r.metric);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"gemm", "new_kernel", "copy", "softmax"}));
  const ComparisonRow* gemm = find_row(c, "gemm<float>(...)");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, schema::ColumnKind::nanoseconds);
  EXPECT_DOUBLE_EQ(*difference(*gemm), 300.0);
  EXPECT_DOUBLE_EQ(*ratio(*gemm), 1.3);
  EXPECT_EQ(find_row(c, "copy<float>(...)")->note, "B ran no such kernel");
  EXPECT_EQ(find_row(c, "new_kernel<float>(...)")->note, "A ran no such kernel");
  // Kernel totals are compared, never gated.
  Comparison g = c;
  apply_gate(g, slower("0%"));
  EXPECT_EQ(find_row(g, "gemm<float>(...)")->verdict, Verdict::none);
  // Without a profile on both sides, no kernel rows.
  a.result.kernel_profile.reset();
  const Comparison none = compare_runs(record_of({a}), record_of({b}));
  EXPECT_TRUE(std::none_of(none.rows.begin(), none.rows.end(),
                           [](const ComparisonRow& r) { return r.table == kKernelTotals; }));
}

TEST(RunCompare, OtherExperimentsTablesPairByTheirIdentity) {
  // An attention-like table: identity seq, measure fwd_ms with its spread in fwd_std_ms.
  schema::Table t{
      "attention",
      {{"seq", "Seq", schema::ColumnKind::integer, schema::ColumnRole::identity},
       {"fwd_ms", "Forward", schema::ColumnKind::milliseconds, schema::ColumnRole::measure, "", "fwd_std_ms"},
       {"fwd_std_ms", "Forward std", schema::ColumnKind::milliseconds, schema::ColumnRole::detail}},
      {{int64_t{128}, 1.0, 0.1}, {int64_t{256}, 4.0, 0.1}}};
  schema::Table u = t;
  u.rows = {{int64_t{256}, 5.0, 0.1}, {int64_t{128}, 1.0, 0.1}};
  RunRecord a, b;
  a.tables = {t};
  b.tables = {u};
  const Comparison c = gated(a, b, slower("10%"));
  const ComparisonRow* long_seq = find_row(c, "fwd_ms", "Seq 256");
  ASSERT_NE(long_seq, nullptr);
  EXPECT_DOUBLE_EQ(*difference(*long_seq), 1.0);
  EXPECT_FALSE(long_seq->a_samples.has_value());  // the table does not say: n = 1
  EXPECT_NEAR(*long_seq->noise, 2 * std::sqrt(0.01 + 0.01), 1e-12);
  EXPECT_EQ(long_seq->verdict, Verdict::regressed);  // 1 > 10% x 4 and 1 > 0.283
  EXPECT_EQ(find_row(c, "fwd_ms", "Seq 128")->verdict, Verdict::ok);
}

// A table that counts its measurements (attention's "passes") gives each side's n: the noise is
// 2 x sqrt(0.4²/16 + 0.4²/4) = 2 x sqrt(0.01 + 0.04) = 0.447, under B - A = 0.5.
TEST(RunCompare, ATablesOwnCountIsEachSidesN) {
  schema::Column fwd{"fwd_ms", "Forward", schema::ColumnKind::milliseconds, schema::ColumnRole::measure, "", "fwd_std_ms"};
  fwd.samples_key = "passes";
  schema::Table t{"attention",
                  {{"seq", "Seq", schema::ColumnKind::integer, schema::ColumnRole::identity},
                   fwd,
                   {"fwd_std_ms", "Forward std", schema::ColumnKind::milliseconds, schema::ColumnRole::detail},
                   {"passes", "Passes", schema::ColumnKind::integer, schema::ColumnRole::detail}},
                  {{int64_t{128}, 4.0, 0.4, int64_t{16}}}};
  schema::Table u = t;
  u.rows = {{int64_t{128}, 4.5, 0.4, int64_t{4}}};
  RunRecord a, b;
  a.tables = {t};
  b.tables = {u};
  // Through the JSON record, as files carry it.
  const Comparison c = gated(read_run_record(write_run_record(a)), read_run_record(write_run_record(b)), slower("10%"));
  const ComparisonRow* row = find_row(c, "fwd_ms");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->a_samples, 16);
  EXPECT_EQ(row->b_samples, 4);
  EXPECT_NEAR(*row->noise, 2 * std::sqrt(0.05), 1e-12);
  EXPECT_EQ(row->verdict, Verdict::regressed);  // 0.5 > 10% x 4 and 0.5 > 0.447
}

// An imported profile's bench row has no model settings: its configuration is its name alone.
TEST(RunCompare, SettingsNeitherSideHasAreLeftOutOfTheConfiguration) {
  RunRecordEntry a = bench_entry(32, 2, 10.0, 0.5, 4), b = bench_entry(32, 2, 11.0, 0.5, 4);
  a.result.imported_from = "runs/before.json.gz";
  b.result.imported_from = "runs/after.json.gz";
  const Comparison c = compare_runs(record_of({a}), record_of({b}));
  const ComparisonRow* step = find_row(c, "total_mean_ms");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->configuration, "import: before.json.gz (cpu) \u2192 import: after.json.gz (cpu)");
  EXPECT_EQ(c.changes, "Model import: before.json.gz (cpu) \u2192 import: after.json.gz (cpu)");
}

TEST(RunCompare, RecordsHoldingNothingAlikeAreRefused) {
  RunRecord attention;
  attention.tables = {schema::Table{"attention", {}, {}}};
  try {
    compare_runs(record_of({bench_entry(32, 2, 10.0, 0.0, 5)}), attention);
    FAIL() << "compared a bench run with an attention sweep";
  } catch (const CompareError& e) {
    EXPECT_NE(std::string(e.what()).find("A holds bench configurations, B holds attention"), std::string::npos)
        << e.what();
  }
}

TEST(RunCompare, WritesThroughTheTableWritersAfterARoundTripOfTheRecords) {
  // Records written and read back as files are: the steps (n) survive, the figures come out.
  const RunRecord a = read_run_record(write_run_record(record_of({bench_entry(32, 2, 100.0, 1.0, 10)})));
  const RunRecord b = read_run_record(write_run_record(record_of({bench_entry(32, 2, 110.0, 1.0, 10)})));
  const GateRule rule = slower("5%");
  const Comparison c = gated(a, b, rule);
  std::ostringstream csv;
  write_table_csv(csv, comparison_table(c));
  const std::string header = csv.str().substr(0, csv.str().find('\n'));
  EXPECT_EQ(header.rfind("table,configuration,measure,a,b,b_minus_a,b_over_a,verdict,", 0), 0u) << header;
  EXPECT_NE(
      csv.str().find("bench,\"tiny, Context 32, Batch 2, fp32, train, naive, eager\",Step,100,110,10,1.1,regressed,"),
      std::string::npos)
      << csv.str();
  const nlohmann::json json = comparison_to_json(c, rule, "a.json", "b.json");
  EXPECT_EQ(json["format"], "stepscope-compare");
  EXPECT_EQ(json["regressions"], 1);
  EXPECT_EQ(json["verdict"].get<std::string>().rfind("FAIL", 0), 0u);
  EXPECT_NE(json["rule"].get<std::string>().find("B - A > P x A and B - A > 2 x sqrt"), std::string::npos);
  const auto& row = json["table"]["rows"][0];
  EXPECT_EQ(row["measure_key"], "total_mean_ms");
  EXPECT_EQ(row["b_minus_a"], 10.0);
  EXPECT_EQ(row["a_samples"], 10);
  EXPECT_EQ(row["unit"], "milliseconds");
}

}  // namespace
}  // namespace stepscope::compare
