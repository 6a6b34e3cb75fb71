#include <gtest/gtest.h>

#include <cmath>

#include "core/phase_stats.h"

namespace stepscope {
namespace {

TEST(PhaseStats, SampleStatisticsInMilliseconds) {
  // 1, 2, 3, 4 ms: mean 2.5, sample variance 5/3, median 2.5.
  const auto s = summarize_ns({4000000, 1000000, 3000000, 2000000});
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_NEAR(s.std_ms, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.max_ms, 4.0);
}

TEST(PhaseStats, OddCountMedianAndSingleSample) {
  EXPECT_DOUBLE_EQ(summarize_ns({5000000, 1000000, 9000000}).median_ms, 5.0);
  const auto one = summarize_ns({7000000});
  EXPECT_DOUBLE_EQ(one.mean_ms, 7.0);
  EXPECT_DOUBLE_EQ(one.std_ms, 0.0);
  EXPECT_EQ(summarize_ns({}).count, 0);
}

}  // namespace
}  // namespace stepscope
