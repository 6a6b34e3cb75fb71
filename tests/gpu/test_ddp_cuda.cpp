// DDP and collectives on a GPU through NCCL, one rank in-process (a second GPU is the device
// script's): the row runs in fp32 and bf16 with each rank's times, its overlap picture comes
// from CUPTI's kernels named after their phase, and numbers and text gather through NCCL.
#include <gtest/gtest.h>

#include <algorithm>

#include "compat/c10d_compat.h"
#include "compat/torch_compat.h"
#include "distributed/c10d_communicator.h"
#include "distributed/free_port.h"
#include "distributed/rank_gather.h"
#include "experiments/ddp/ddp_sweep.h"
#include "runners/step_graphs.h"

namespace stepscope {
namespace {

#define REQUIRE_NCCL()                                                                   \
  if (compat::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible to this build"; \
  if (!compat::has_nccl()) GTEST_SKIP() << "this build has no NCCL"

std::unique_ptr<distributed::Communicator> one_rank_nccl() {
  compat::set_cuda_device(0);
  const distributed::TorchrunEnv env{"127.0.0.1", distributed::find_free_port(), 0, 1, 0, 1};
  return distributed::connect_c10d(env, CommBackend::nccl, std::chrono::seconds(60));
}

DdpConfig mini_row(distributed::DdpVariant variant, Precision precision) {
  DdpConfig c;
  c.variant = variant;
  c.bucket_mb = 1;
  c.ranks = 1;
  c.backend = CommBackend::nccl;
  c.device = Device{DeviceKind::cuda, 0};
  c.model = model_preset("mini");
  c.context = 64;
  c.batch = 2;
  c.precision = precision;
  c.warmup_steps = 1;
  c.measured_steps = 2;
  c.check = true;
  return c;
}

TEST(DdpCuda, RowsAndKernelPictureOnNccl) {
  REQUIRE_NCCL();
  auto comm = one_rank_nccl();
  std::vector<DdpRowSet> rows;
  run_ddp_sweep({mini_row(distributed::DdpVariant::bucketed, Precision::fp32), mini_row(distributed::DdpVariant::overlap, Precision::bf16)},
                *comm, nullptr, nullptr, [&](const DdpRowSet& set) { rows.push_back(set); });
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& set : rows) {
    EXPECT_EQ(set.combined.status, RunStatus::ok) << set.combined.message;
    EXPECT_GT(set.combined.step_ms, 0);
    ASSERT_EQ(set.per_rank.size(), 1u);
    // One rank trains exactly what one process does (same kernels, same order).
    EXPECT_LE(set.combined.max_param_diff, 1e-4);
    ASSERT_EQ(set.timelines.size(), 1u);
    const auto& spans = set.timelines[0].spans;
    const auto backward_kernels = std::count_if(spans.begin(), spans.end(), [](const TimelineSpan& s) {
      return s.lane == TimelineLane::compute && s.name.rfind("backward: ", 0) == 0;
    });
    EXPECT_GT(backward_kernels, 10) << "CUPTI's kernels, named by phase";
  }
}

// The fused engine's step under CUDA graphs: the hooks' NCCL all-reduces and their waits are
// captured in the backward graph and replayed; the parameters must still follow one process.
TEST(DdpCuda, FusedStepReplaysGraphsWithItsCollectives) {
  REQUIRE_NCCL();
  auto comm = one_rank_nccl();
  std::vector<DdpConfig> configs;
  for (bool graphs : {true, false}) {
    for (Precision reduce : {Precision::fp32, Precision::bf16}) {
      DdpConfig c = mini_row(distributed::DdpVariant::bucketed, Precision::bf16);
      c.engine = EngineKind::fused;
      c.reduce_dtype = reduce;
      c.cuda_graphs = graphs;
      c.warmup_steps = kGraphWarmupSteps;
      c.measured_steps = 3;
      configs.push_back(c);
    }
  }
  std::vector<DdpRowSet> rows;
  run_ddp_sweep(configs, *comm, nullptr, nullptr, [&](const DdpRowSet& set) { rows.push_back(set); });
  ASSERT_EQ(rows.size(), configs.size());
  for (const auto& set : rows) {
    const DdpResult& r = set.combined;
    SCOPED_TRACE(describe(r.config) + (r.config.cuda_graphs ? " graphs" : " no graphs"));
    ASSERT_EQ(r.status, RunStatus::ok) << r.message;
    EXPECT_EQ(r.cuda_graphs_used, r.config.cuda_graphs);
    EXPECT_GT(r.step_ms, 0);
    EXPECT_GE(r.exposed_comm_ms, 0);
    // Under graphs no collective call runs on the host.
    EXPECT_EQ(r.comm_ms < 0, r.config.cuda_graphs);
    EXPECT_GT(r.comm_bytes, 0);
    // bf16 reduction rounds each mean gradient to bf16; one process keeps fp32.
    EXPECT_LE(r.max_param_diff, r.config.reduce_dtype == Precision::fp32 ? 1e-5 : 1e-2);
    ASSERT_EQ(set.timelines.size(), 1u);
    const auto& spans = set.timelines[0].spans;
    EXPECT_GT(std::count_if(spans.begin(), spans.end(),
                            [](const TimelineSpan& s) { return s.name.rfind("backward: ", 0) == 0; }),
              10)
        << "graph kernels seen by CUPTI, named by phase";
  }
}

TEST(DdpCuda, GatherThroughNccl) {
  REQUIRE_NCCL();
  auto comm = one_rank_nccl();
  const auto numbers = distributed::gather_numbers(*comm, {1.5, -2.0}, c10::Device("cuda:0"));
  ASSERT_EQ(numbers.size(), 1u);
  EXPECT_EQ(numbers[0], (std::vector<double>{1.5, -2.0}));
  EXPECT_EQ(distributed::gather_text(*comm, "rank zero", c10::Device("cuda:0")), std::vector<std::string>{"rank zero"});
}

}  // namespace
}  // namespace stepscope
