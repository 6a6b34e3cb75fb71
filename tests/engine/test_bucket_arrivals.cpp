// Buckets start in their order whatever order gradients arrive in (every rank must issue the
// same collectives in the same order), a second gradient before reset() is an error, and the
// first parameter without one is named.
#include <gtest/gtest.h>

#include <stdexcept>

#include "distributed/ddp/bucket_arrivals.h"

using stepscope::distributed::BucketArrivals;

TEST(BucketArrivals, ABucketStartsOnlyAfterTheOnesBeforeIt) {
  BucketArrivals arrivals({0, 0, 1, 2, 2});  // parameters 0,1 | 2 | 3,4
  EXPECT_EQ(arrivals.arrive(2), std::vector<size_t>{}) << "bucket 1 is complete but bucket 0 is not";
  EXPECT_EQ(arrivals.arrive(4), std::vector<size_t>{});
  EXPECT_EQ(arrivals.arrive(0), std::vector<size_t>{});
  EXPECT_EQ(arrivals.first_missing(), 1u);
  EXPECT_EQ(arrivals.arrive(1), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(arrivals.arrive(3), std::vector<size_t>{2});
  EXPECT_EQ(arrivals.first_missing(), 5u) << "every parameter has its gradient";
}

TEST(BucketArrivals, ASecondGradientIsAnErrorUntilReset) {
  BucketArrivals arrivals({0, 1});
  EXPECT_EQ(arrivals.arrive(0), std::vector<size_t>{0});
  EXPECT_THROW(arrivals.arrive(0), std::runtime_error);
  arrivals.reset();
  EXPECT_EQ(arrivals.first_missing(), 0u);
  EXPECT_EQ(arrivals.arrive(1), std::vector<size_t>{});
  EXPECT_EQ(arrivals.arrive(0), (std::vector<size_t>{0, 1}));
}
