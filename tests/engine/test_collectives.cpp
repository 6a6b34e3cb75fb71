// The collective benchmark: nccl-tests' bus-bandwidth factors, sizes and refusals; every
// collective over real Gloo between two ranks (threads of this process, each with its own
// c10d group) with #wrong = 0 against independently computed sums; every free of a
// collective's temporaries on the rank's own thread; and #wrong counting a communicator that
// does not reduce.
#include <gtest/gtest.h>

#include <ATen/ATen.h>


#include "compat/c10d_compat.h"
#include "dist_test_support.h"
#include "experiments/collectives/collective_case.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/collectives/collective_sweep.h"
#include "core/config_error.h"
#include "profiling/allocation_recorder.h"

using namespace stepscope;

TEST(CollectiveTypes, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_gather, 6), 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::broadcast, 6), 1.0);
}

TEST(CollectiveTypes, CountsAndRefusals) {
  CollectiveConfig c;
  c.size_bytes = 1000002;  // 250000.5 floats
  c.ranks = 3;
  EXPECT_EQ(element_count(c), 250000);
  c.op = CollectiveOp::all_gather;
  EXPECT_EQ(element_count(c), 249999);  // whole slices
  c.dtype = Precision::bf16;
  EXPECT_EQ(element_count(c), 500001 - 500001 % 3);
  const auto field_of = [](CollectiveConfig bad) {
    try {
      validate(bad);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string("none");
  };
  CollectiveConfig nccl_on_cpu;
  nccl_on_cpu.backend = CommBackend::nccl;
  EXPECT_EQ(field_of(nccl_on_cpu), "backend");
  CollectiveConfig tiny;
  tiny.size_bytes = 2;  // half a float
  EXPECT_EQ(field_of(tiny), "sizes");
  EXPECT_EQ(parse_collective_op("reducescatter"), CollectiveOp::reduce_scatter);
  EXPECT_THROW(parse_collective_op("all-reduce"), ConfigError);
}

namespace {

// The sweep on `ranks` Gloo ranks (threads of this process); every rank's rows.
std::vector<std::vector<CollectiveResult>> on_gloo(int ranks, const std::vector<CollectiveConfig>& configs) {
  std::vector<std::vector<CollectiveResult>> rows(static_cast<size_t>(ranks));
  stepscope::testing::on_gloo_ranks(ranks, [&](distributed::Communicator& comm) {
    run_collective_sweep(configs, comm, nullptr, nullptr,
                         [&](const CollectiveResult& row) { rows[static_cast<size_t>(comm.rank())].push_back(row); });
  });
  return rows;
}

}  // namespace

TEST(CollectivesOnGloo, EveryCollectiveIsRightOnTwoRanks) {
  CollectiveSweepSpec spec;
  spec.base.warmup_iters = 1;
  spec.base.iters = 3;
  spec.ops = {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
              CollectiveOp::broadcast};
  spec.sizes_bytes = {4096, 1 << 20};
  spec.dtypes = {Precision::fp32, Precision::fp16};
  const auto rows = on_gloo(2, expand(spec, 2));
  ASSERT_EQ(rows[0].size(), size_t{16});
  for (size_t i = 0; i < rows[0].size(); ++i) {
    const CollectiveResult& row = rows[0][i];
    SCOPED_TRACE(describe(row.config));
    EXPECT_EQ(row.status, RunStatus::ok) << row.message;
    EXPECT_EQ(row.wrong, 0);
    EXPECT_GT(row.time_us, 0);
    EXPECT_DOUBLE_EQ(row.busbw_gbps, row.algbw_gbps * bus_bandwidth_factor(row.config.op, 2));
    EXPECT_NEAR(row.algbw_gbps, row.config.size_bytes / row.time_us * 1e-3, 1e-9 * row.algbw_gbps);
    // Every rank holds the same row: the slowest rank's time.
    EXPECT_EQ(rows[1][i].time_us, row.time_us);
    EXPECT_EQ(row.native, row.config.op != CollectiveOp::reduce_scatter);
  }
  const auto table = collective_schema().table(rows[0]);
  EXPECT_EQ(table.columns[0].key, "op");
  EXPECT_EQ(table.column_index("wrong"), 9);
}

TEST(CollectivesOnGloo, ThreeRanksToo) {
  CollectiveSweepSpec spec;
  spec.base.warmup_iters = 0;
  spec.base.iters = 2;
  spec.ops = {CollectiveOp::all_reduce, CollectiveOp::all_gather};
  spec.sizes_bytes = {30000};
  const auto rows = on_gloo(3, expand(spec, 3));
  ASSERT_EQ(rows[2].size(), size_t{2});
  for (const auto& row : rows[2]) {
    EXPECT_EQ(row.status, RunStatus::ok) << row.message;
    EXPECT_EQ(row.wrong, 0) << describe(row.config);
  }
}

TEST(CollectivesOnGloo, Bf16IsRefusedWhereGlooLacksIt) {
  if (compat::gloo_has_bfloat16()) GTEST_SKIP() << "this LibTorch's Gloo reduces bf16";
  CollectiveConfig c;
  c.dtype = Precision::bf16;
  try {
    check_runnable(c);
    FAIL() << "bf16 on Gloo was not refused";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "dtype");
    EXPECT_NE(std::string(e.what()).find("no bf16 collectives"), std::string::npos) << e.what();
  }
}

namespace {

// Two ranks in name; reduces nothing, so an all-reduce leaves each rank its own values.
class NonReducingCommunicator final : public distributed::Communicator {
 public:
  struct Done final : distributed::PendingCollective {
    void wait() override {}
  };
  int rank() const override { return 0; }
  int size() const override { return 2; }
  CommBackend backend() const override { return CommBackend::gloo; }
  bool native_reduce_scatter() const override { return true; }
  std::unique_ptr<distributed::PendingCollective> all_reduce(at::Tensor&, distributed::ReduceOp) override { return std::make_unique<Done>(); }
  std::unique_ptr<distributed::PendingCollective> reduce_scatter(at::Tensor&, const at::Tensor&) override { return std::make_unique<Done>(); }
  std::unique_ptr<distributed::PendingCollective> all_gather(at::Tensor&, const at::Tensor&) override { return std::make_unique<Done>(); }
  std::unique_ptr<distributed::PendingCollective> broadcast(at::Tensor&, int) override { return std::make_unique<Done>(); }
  void barrier() override {}
};

}  // namespace

TEST(CollectiveCheck, AWrongReductionIsCounted) {
  NonReducingCommunicator comm;
  CollectiveConfig c;
  c.size_bytes = 4 * 3000;
  c.iters = 1;
  c.warmup_iters = 0;
  std::vector<CollectiveResult> rows;
  run_collective_sweep({c}, comm, nullptr, nullptr, [&](const CollectiveResult& r) { rows.push_back(r); });
  ASSERT_EQ(rows.size(), size_t{1});
  // Rank 0 keeps i mod 3; the sum with rank 1 adds (i + 1) mod 3, which is 0 for a third of i.
  EXPECT_EQ(rows[0].wrong, 2000);
}

// Patterns are made and compared a million elements at a time: over several chunks, with
// 3 ranks whose slices end inside chunks, every collective still checks out, and a wrong
// reduction is counted in every chunk.
TEST(CollectivesOnGloo, BuffersOfSeveralChunksAreMadeAndCheckedRight) {
  CollectiveSweepSpec spec;
  spec.base.warmup_iters = 0;
  spec.base.iters = 1;
  spec.ops = {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
              CollectiveOp::broadcast};
  spec.sizes_bytes = {4 * 3 * ((int64_t{1} << 20) + 7)};  // 3 slices of a chunk and 7 elements
  const auto rows = on_gloo(3, expand(spec, 3));
  ASSERT_EQ(rows[0].size(), size_t{4});
  for (const auto& row : rows[0]) {
    EXPECT_EQ(row.status, RunStatus::ok) << row.message;
    EXPECT_EQ(row.wrong, 0) << describe(row.config);
  }
}

TEST(CollectiveCheck, AWrongReductionIsCountedInEveryChunk) {
  NonReducingCommunicator comm;
  CollectiveConfig c;
  c.size_bytes = 4 * 3 * (int64_t{1} << 20);  // three chunks
  c.iters = 1;
  c.warmup_iters = 0;
  std::vector<CollectiveResult> rows;
  run_collective_sweep({c}, comm, nullptr, nullptr, [&](const CollectiveResult& r) { rows.push_back(r); });
  ASSERT_EQ(rows.size(), size_t{1});
  EXPECT_EQ(rows[0].wrong, 2 * (int64_t{1} << 20));  // two thirds of the elements, as above
}

// Gloo's worker thread holds a collective's work for a moment after it wakes the waiter, and
// the work holds the collective's tensors. Their frees must still come on the rank's own thread,
// where the allocation recorder hooks in: a free it misses leaves a temporary live for the rest
// of a DDP memory table (ZeRO-1 rows were seen with a parameter's worth of "other" bytes).
TEST(CollectivesOnGloo, TheCallerSeesEveryFreeOfACollectivesTemporaries) {
  stepscope::testing::on_gloo_ranks(2, [](distributed::Communicator& comm) {
    const at::Tensor input = at::ones({2, 65536});  // before the recorder
    at::Tensor output = at::empty({65536});
    at::Tensor gathered = at::empty({2, 65536});
    profiling::AllocationLog log;
    {
      profiling::AllocationRecorder recorder;
      for (int i = 0; i < 50; ++i) {
        comm.reduce_scatter(output, input)->wait();  // not this rank's slice: Gloo reduces a copy
        comm.all_gather(gathered, output)->wait();
      }
      log = recorder.log();
    }
    int64_t live = 0;
    for (const auto& event : log.events) live += event.bytes;
    EXPECT_GE(log.events.size(), size_t{100}) << "the copies were not recorded";
    EXPECT_EQ(live, 0) << "rank " << comm.rank() << ": bytes allocated and not seen freed";
    EXPECT_FLOAT_EQ(gathered.sum().item<float>(), 2.f * 2 * 65536);
  });
}
