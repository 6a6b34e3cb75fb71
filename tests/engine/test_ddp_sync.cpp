// The DDP variants' gradient synchronisation: the bucket plan worked by hand; every variant on
// 2 and 3 Gloo ranks (threads) leaves each rank the mean of the ranks' gradients, computed here
// independently; broadcast gives every rank rank 0's weights; an unused parameter is named.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "dist_test_support.h"
#include "test_support.h"
#include "distributed/ddp/bucket_plan.h"
#include "distributed/ddp/gradient_sync.h"
#include "core/config_error.h"

using namespace stepscope;
using distributed::Bucket;
using distributed::DdpVariant;

namespace {

std::vector<distributed::ParameterSize> fp32_sizes(const std::vector<int64_t>& numels) {
  std::vector<distributed::ParameterSize> sizes;
  for (size_t i = 0; i < numels.size(); ++i) sizes.push_back({i, numels[i], 4});
  return sizes;
}

}  // namespace

TEST(BucketPlan, ReverseOrderWithinTheLimit) {
  // 40, 80, 120, 160 bytes under 200: [3] (3+2 would be 280), [2, 1] exactly 200, [0].
  const auto buckets = distributed::plan_buckets(fp32_sizes({10, 20, 30, 40}), 200);
  ASSERT_EQ(buckets.size(), size_t{3});
  EXPECT_EQ(buckets[0].parameters, (std::vector<size_t>{3}));
  EXPECT_EQ(buckets[1].parameters, (std::vector<size_t>{2, 1}));
  EXPECT_EQ(buckets[1].offsets, (std::vector<int64_t>{0, 30}));
  EXPECT_EQ(buckets[1].numel, 50);
  EXPECT_EQ(buckets[1].bytes, 200);
  EXPECT_EQ(buckets[2].parameters, (std::vector<size_t>{0}));
}

TEST(BucketPlan, OversizeParameterGetsItsOwnBucket) {
  // 20, 400, 20, 20 bytes under 64: [3, 2], [1] alone at 400, [0].
  const auto buckets = distributed::plan_buckets(fp32_sizes({5, 100, 5, 5}), 64);
  ASSERT_EQ(buckets.size(), size_t{3});
  EXPECT_EQ(buckets[0].parameters, (std::vector<size_t>{3, 2}));
  EXPECT_EQ(buckets[1].parameters, (std::vector<size_t>{1}));
  EXPECT_EQ(buckets[1].bytes, 400);
  EXPECT_EQ(buckets[2].parameters, (std::vector<size_t>{0}));
  // Element size counts: 2-byte elements fit twice as many.
  std::vector<distributed::ParameterSize> halves{{0, 16, 2}, {1, 16, 2}};
  EXPECT_EQ(distributed::plan_buckets(halves, 64).size(), size_t{1});
}

TEST(BucketPlan, HugeLimitIsOneBucket) {
  const auto buckets = distributed::plan_buckets(fp32_sizes({7, 3, 11}), int64_t{1} << 40);
  ASSERT_EQ(buckets.size(), size_t{1});
  EXPECT_EQ(buckets[0].parameters, (std::vector<size_t>{2, 1, 0}));
  EXPECT_EQ(buckets[0].offsets, (std::vector<int64_t>{0, 11, 14}));
  EXPECT_EQ(buckets[0].numel, 21);
  EXPECT_TRUE(distributed::plan_buckets({}, 100).empty());
}

TEST(BucketPlan, Refusals) {
  try {
    distributed::plan_buckets(fp32_sizes({1}), 0);
    FAIL() << "a zero limit was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "bucket_mb");
  }
  EXPECT_THROW(distributed::plan_buckets(fp32_sizes({4, -1}), 64), std::invalid_argument);
}

TEST(DdpVariantNames, RoundTripAndRefusal) {
  for (DdpVariant v : distributed::all_ddp_variants()) EXPECT_EQ(distributed::parse_ddp_variant(distributed::to_string(v)), v);
  try {
    distributed::parse_ddp_variant("ring");
    FAIL() << "an unknown variant was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "variant");
  }
}

namespace {

// Five parameters (768, 64, 1024, 320, 20 bytes), W2 used twice; 800-byte buckets are
// [4, 3], [2] (oversize), [1], [0].
const std::vector<std::vector<int64_t>> kShapes{{16, 12}, {16}, {16, 16}, {5, 16}, {5}};

std::vector<at::Tensor> toy_weights(uint64_t seed) {
  auto generator = at::detail::createCPUGenerator(seed);
  std::vector<at::Tensor> weights;
  for (const auto& shape : kShapes) weights.push_back(at::randn(shape, generator).mul_(0.5).requires_grad_(true));
  return weights;
}

at::Tensor toy_input(int rank, int step) {
  return at::randn({6, 12}, at::detail::createCPUGenerator(1000 + 10 * rank + step));
}

at::Tensor toy_loss(const std::vector<at::Tensor>& w, const at::Tensor& x) {
  const auto h = at::tanh(at::linear(x, w[0], w[1]));
  const auto h2 = at::linear(at::tanh(at::linear(h, w[2])), w[2]);
  return at::linear(h2, w[3], w[4]).pow(2).mean();
}

// The mean over ranks of each parameter's gradient at `weights`, step `step`.
std::vector<at::Tensor> mean_gradients(const std::vector<at::Tensor>& weights, int ranks, int step) {
  std::vector<at::Tensor> sum(weights.size());
  for (int r = 0; r < ranks; ++r) {
    std::vector<at::Tensor> w;
    for (const auto& t : weights) w.push_back(t.detach().clone().requires_grad_(true));
    toy_loss(w, toy_input(r, step)).backward();
    for (size_t i = 0; i < w.size(); ++i) sum[i] = r == 0 ? w[i].grad().clone() : sum[i] + w[i].grad();
  }
  for (auto& s : sum) s.div_(ranks);
  return sum;
}

// Each rank starts from its own weights, takes rank 0's and runs two backward passes.
void check_variant(DdpVariant variant, int ranks, int64_t bucket_bytes, int64_t collectives_per_step) {
  SCOPED_TRACE(distributed::to_string(variant) + " x" + std::to_string(ranks) + " buckets " + std::to_string(bucket_bytes));
  const auto rank0 = toy_weights(1);
  std::vector<std::vector<at::Tensor>> expected{mean_gradients(rank0, ranks, 0), mean_gradients(rank0, ranks, 1)};
  std::vector<std::vector<at::Tensor>> weights;
  for (int r = 0; r < ranks; ++r) weights.push_back(toy_weights(1 + static_cast<uint64_t>(r)));
  stepscope::testing::on_gloo_ranks(ranks, [&](distributed::Communicator& comm) {
    auto& w = weights[static_cast<size_t>(comm.rank())];
    distributed::GradientSyncOptions options;
    options.variant = variant;
    options.bucket_bytes = bucket_bytes;
    auto sync = distributed::make_gradient_sync(w, comm, options);
    sync->broadcast_parameters();
    for (int step = 0; step < 2; ++step) {
      sync->begin_step();
      toy_loss(w, toy_input(comm.rank(), step)).backward();
      const distributed::SyncTimings t = sync->finish();
      EXPECT_EQ(t.collectives, collectives_per_step);
      EXPECT_EQ(t.bytes, (192 + 16 + 256 + 80 + 5) * 4);
      EXPECT_GT(t.comm_ms, 0);
      EXPECT_GE(t.exposed_ms, 0);
      for (size_t i = 0; i < w.size(); ++i) {
        EXPECT_LE(stepscope::testing::max_abs_difference(w[i].grad(), expected[static_cast<size_t>(step)][i]), 1e-6)
            << "rank " << comm.rank() << " step " << step << " parameter " << i;
      }
    }
    sync.reset();  // hooks removed: a later backward must not reach the freed state
    toy_loss(w, toy_input(comm.rank(), 0)).backward();
  });
}

}  // namespace

TEST(DdpSync, NaiveAveragesGradients) {
  for (int ranks : {2, 3}) check_variant(DdpVariant::naive, ranks, 0, 5);
}

TEST(DdpSync, FlatAveragesGradients) {
  for (int ranks : {2, 3}) check_variant(DdpVariant::flat, ranks, 0, 1);
}

TEST(DdpSync, OverlapAveragesGradients) {
  for (int ranks : {2, 3}) check_variant(DdpVariant::overlap, ranks, 0, 5);
}

TEST(DdpSync, BucketedAveragesGradients) {
  for (int ranks : {2, 3}) check_variant(DdpVariant::bucketed, ranks, 800, 4);
  check_variant(DdpVariant::bucketed, 2, int64_t{1} << 40, 1);
}

TEST(DdpSync, BroadcastGivesEveryRankRankZerosWeights) {
  for (int ranks : {2, 3}) {
    std::vector<std::vector<at::Tensor>> weights;
    for (int r = 0; r < ranks; ++r) weights.push_back(toy_weights(50 + static_cast<uint64_t>(r)));
    const auto rank0 = toy_weights(50);
    stepscope::testing::on_gloo_ranks(ranks, [&](distributed::Communicator& comm) {
      auto sync = distributed::make_gradient_sync(weights[static_cast<size_t>(comm.rank())], comm, {});
      sync->broadcast_parameters();
    });
    for (int r = 1; r < ranks; ++r) {
      for (size_t i = 0; i < rank0.size(); ++i) {
        EXPECT_TRUE(at::equal(weights[static_cast<size_t>(r)][i], rank0[i])) << "rank " << r << " parameter " << i;
      }
    }
  }
}

TEST(DdpSync, UnusedParameterIsNamed) {
  stepscope::testing::SoloCommunicator solo;
  for (DdpVariant variant : distributed::all_ddp_variants()) {
    auto w = toy_weights(3);
    auto sync = distributed::make_gradient_sync(w, solo, {variant, 64, {}});
    sync->begin_step();
    at::linear(toy_input(0, 0), w[0]).sum().backward();  // parameters 1..4 unused
    try {
      sync->finish();
      FAIL() << distributed::to_string(variant) << " accepted a missing gradient";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("parameter 1 received no gradient"), std::string::npos) << e.what();
    }
  }
  std::vector<at::Tensor> frozen{at::ones({2})};
  EXPECT_THROW(distributed::make_gradient_sync(frozen, solo, {}), std::invalid_argument);
}
