// compare beyond the step benchmark's rows: kernel totals with the top movers first, the other
// experiments' tables, imports, refusals, and the writers. Hand-picked numbers, as in
// test_run_compare.cpp.
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
