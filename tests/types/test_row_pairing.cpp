// Rows of two runs paired for comparison: by identity, and across one changed setting.
#include <gtest/gtest.h>

#include "schema/row_pairing.h"

using namespace stepscope::schema;

namespace {

Table sweep(const std::vector<std::pair<std::string, int64_t>>& rows) {
  Table t;
  t.schema = "demo";
  t.columns.push_back({"model", "Model", ColumnKind::text, ColumnRole::identity});
  t.columns.push_back({"context", "Context", ColumnKind::integer, ColumnRole::identity});
  t.columns.push_back({"step_ms", "Step", ColumnKind::milliseconds, ColumnRole::measure});
  for (const auto& [model, context] : rows) t.rows.push_back({Value(model), Value(context), Value(1.0 * context)});
  return t;
}

}  // namespace

TEST(RowPairing, SameConfigurationsPairByIdentity) {
  const auto pairs = pair_rows(sweep({{"tiny", 64}, {"mini", 64}}), sweep({{"mini", 64}, {"tiny", 64}}));
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].b, std::optional<size_t>(1));
  EXPECT_EQ(pairs[1].b, std::optional<size_t>(0));
  EXPECT_TRUE(pairs[0].changes.empty());
}

// A sweep run again at another context: each model pairs with itself, the context named.
TEST(RowPairing, ASweepAtAnotherContextPairsRowByRow) {
  const auto pairs = pair_rows(sweep({{"tiny", 128}, {"mini", 128}}), sweep({{"tiny", 256}, {"mini", 256}}));
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].b, std::optional<size_t>(0));
  EXPECT_EQ(pairs[1].b, std::optional<size_t>(1));
  ASSERT_EQ(pairs[0].changes.size(), 1u);
  EXPECT_EQ(pairs[0].changes[0].column, 1u);
  EXPECT_EQ(pairs[0].changes[0].a, Value(int64_t{128}));
  EXPECT_EQ(pairs[0].changes[0].b, Value(int64_t{256}));
  const auto changes = distinct_changes(pairs);
  ASSERT_EQ(changes.size(), 1u);
}

TEST(RowPairing, RowsOnlyInOneRunStayAlone) {
  const auto pairs = pair_rows(sweep({{"tiny", 64}, {"mini", 64}}), sweep({{"tiny", 64}, {"small", 32}, {"xl", 16}}));
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[0].b, std::optional<size_t>(0));
  EXPECT_FALSE(pairs[1].b.has_value());  // mini differs from both in two settings
  EXPECT_FALSE(pairs[2].a.has_value());
  EXPECT_FALSE(pairs[3].a.has_value());
}

// Two single runs pair whatever differs: that is what was asked to compare.
TEST(RowPairing, TwoSingleRunsPairAcrossSeveralChanges) {
  const auto pairs = pair_rows(sweep({{"tiny", 64}}), sweep({{"mini", 128}}));
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].b, std::optional<size_t>(0));
  EXPECT_EQ(pairs[0].changes.size(), 2u);
}

// Runs that share configurations: the others are a sweep extended, not a setting changed.
TEST(RowPairing, RunsThatShareConfigurationsPairNoOthers) {
  const auto pairs = pair_rows(sweep({{"tiny", 64}, {"tiny", 128}}), sweep({{"tiny", 128}, {"tiny", 256}}));
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[0].b, std::nullopt);
  EXPECT_EQ(pairs[1].b, std::optional<size_t>(0));
  EXPECT_EQ(pairs[2].b, std::optional<size_t>(1));
  EXPECT_FALSE(pairs[2].a.has_value());
}
