// A run at a glance: configurations ran, device and headline figures from its record.
#include <gtest/gtest.h>

#include "io/run_record_digest.h"

using namespace stepscope;

namespace {

schema::Table attention_like(int rows) {
  schema::Table t;
  t.schema = "attention";
  t.columns.push_back({"seq", "Sequence", schema::ColumnKind::integer, schema::ColumnRole::identity});
  t.columns.push_back(
      {"fwd_bwd_ms", "Forward + backward", schema::ColumnKind::milliseconds, schema::ColumnRole::measure});
  t.columns.push_back({"device", "Device", schema::ColumnKind::text, schema::ColumnRole::detail});
  for (int r = 0; r < rows; ++r) {
    t.rows.push_back({schema::Value(int64_t{128} << r), r == 1 ? schema::Value() : schema::Value(2.0 + r),
                      schema::Value(std::string("cuda:0"))});
  }
  return t;
}

}  // namespace

TEST(RunRecordDigest, ATableRunGivesItsRowsDeviceAndHeadlineRange) {
  ExperimentDescriptor d;
  d.headline = {"fwd_bwd_ms", "no_such_column"};
  RunRecord record;
  record.tables = {attention_like(3)};
  const RunDigest digest = digest_run(record, &d, nullptr, 16);
  EXPECT_EQ(digest.ran, 3u);
  EXPECT_EQ(digest.planned, 16u);
  EXPECT_EQ(digest.device, "cuda:0");
  ASSERT_EQ(digest.figures.size(), 1u);  // the missing column gives no figure
  EXPECT_EQ(digest.figures[0].label, "Forward + backward");
  EXPECT_EQ(digest.figures[0].low, 2.0);  // the row with no value is left out
  EXPECT_EQ(digest.figures[0].high, 4.0);

  const auto back = read_key_figures(write_key_figures(digest.figures));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].kind, schema::ColumnKind::milliseconds);
  EXPECT_EQ(back[0].high, 4.0);
  EXPECT_TRUE(read_key_figures("not json").empty());
}

TEST(RunRecordDigest, ABenchRunCountsItsConfigurations) {
  ExperimentDescriptor d;
  d.headline = {"total_mean_ms"};
  RunRecord record;
  RunRecordEntry e;
  e.result.config.model = model_preset("tiny");
  e.result.config.device = parse_device("cpu");
  e.result.total.mean_ms = 12.5;
  e.result.total.count = 1;
  e.result.steps = {{0, 0, 0, 12'500'000}};
  record.entries = {e, e};
  const RunDigest digest = digest_run(record, &d, nullptr, 0);
  EXPECT_EQ(digest.ran, 2u);
  EXPECT_EQ(digest.device, "cpu");
  ASSERT_EQ(digest.figures.size(), 1u);
  EXPECT_EQ(digest.figures[0].low, 12.5);
}
