// Helpers of the fused engine's DDP tests (test_ddp_fused.cpp, test_ddp_gradient_buffer.cpp):
// the tiny fused model both build, each rank's batch and gradients computed in one process, two
// Gloo ranks (through a bf16-summing or averaging group where asked), and sweep rows of it.
#pragma once

#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "dist_test_support.h"
#include "experiments/ddp/ddp_sweep.h"
#include "model/adamw.h"
#include "model/fused/fused_lm.h"

namespace stepscope::testing::ddp_fused {

using distributed::DdpVariant;
using distributed::OptimizerSharding;
using distributed::Zero1Gathers;

inline constexpr int64_t kContext = 16;
inline constexpr uint64_t kSeed = 7;

// Built one after another: manual_seed is global and the rank threads share it.
inline std::shared_ptr<FusedTransformerLM> build_fused(c10::ScalarType compute = at::kFloat) {
  torch::manual_seed(kSeed);
  return std::make_shared<FusedTransformerLM>(stepscope::testing::parity_model(kContext), torch::TensorOptions().dtype(torch::kFloat32), compute);
}

struct Batch {
  at::Tensor inputs, targets;
};

inline Batch rank_batch(int rank) {
  auto generator = at::detail::createCPUGenerator(900 + static_cast<uint64_t>(rank));
  const auto ids = torch::TensorOptions().dtype(torch::kInt64);
  return {at::randint(256, {2, kContext}, generator, ids), at::randint(256, {2, kContext}, generator, ids)};
}

// Each rank's gradients at the initial weights, computed in this process.
inline std::vector<std::vector<at::Tensor>> per_rank_gradients(int ranks, c10::ScalarType compute = at::kFloat) {
  std::vector<std::vector<at::Tensor>> out;
  for (int r = 0; r < ranks; ++r) {
    auto model = build_fused(compute);
    const Batch b = rank_batch(r);
    model->loss(b.inputs, b.targets).backward();
    std::vector<at::Tensor> grads;
    for (const auto& p : model->parameters()) grads.push_back(p.grad().detach().clone());
    out.push_back(std::move(grads));
  }
  return out;
}

// Runs body(comm) on two Gloo ranks; with bf16, through a group that sums bf16 (Gloo's own
// where it has them).
// `average`: through a group whose all-reduce averages (NCCL's), so the syncs leave the division
// to it.
inline void on_two_ranks(bool bf16, const std::function<void(distributed::Communicator&)>& body, bool average = false) {
  stepscope::testing::on_gloo_ranks(2, [&](distributed::Communicator& gloo) {
    const auto maybe_averaging = [&](distributed::Communicator& comm) {
      if (!average) return body(comm);
      stepscope::testing::AveragesInCollective averaging(comm);
      body(averaging);
      EXPECT_GT(averaging.averaged(), 0) << "no all-reduce averaged";
    };
    if (!bf16 || gloo.sums_bfloat16()) return maybe_averaging(gloo);
    stepscope::testing::Bf16SumsThroughFp32 comm(gloo);
    maybe_averaging(comm);
  });
}

inline DdpConfig fused_row(DdpVariant variant, OptimizerSharding optimizer, Precision precision = Precision::fp32) {
  DdpConfig c;
  c.variant = variant;
  c.bucket_mb = 1.0 / 64;  // 16 KiB: several buckets
  c.optimizer = optimizer;
  c.engine = EngineKind::fused;
  c.model = model_preset("tiny");
  c.model.vocab_size = 256;
  c.context = kContext;
  c.batch = 2;
  c.precision = precision;
  c.warmup_steps = 1;
  c.measured_steps = 2;
  c.check = true;
  return c;
}

// The rows as rank 0 sees them, each configuration run on two ranks.
inline std::vector<DdpResult> run_rows(const std::vector<DdpConfig>& configs, bool bf16_sums = false) {
  std::vector<DdpResult> rows;
  std::mutex mutex;
  on_two_ranks(bf16_sums, [&](distributed::Communicator& comm) {
    run_ddp_sweep(configs, comm, nullptr, nullptr, [&](const DdpRowSet& set) {
      std::lock_guard<std::mutex> lock(mutex);
      if (comm.rank() == 0) rows.push_back(set.combined);
    });
  });
  EXPECT_EQ(rows.size(), configs.size());
  return rows;
}

inline std::vector<DdpConfig> every_variant_and_optimizer(Precision precision) {
  std::vector<DdpConfig> configs;
  for (DdpVariant variant : distributed::all_ddp_variants()) {
    for (OptimizerSharding optimizer : distributed::all_optimizer_shardings()) {
      configs.push_back(fused_row(variant, optimizer, precision));
      if (optimizer == OptimizerSharding::zero1) {
        configs.back().zero1_gathers = Zero1Gathers::next_forward;
        configs.push_back(fused_row(variant, optimizer, precision));
      }
    }
  }
  return configs;
}

// What AdamW can move a parameter in `steps` steps where two runs' gradients differ in sign
// (bf16 rounding of a near-zero gradient): each step's update is at most about lr.
inline double adamw_reach(int steps) { return 2 * AdamWOptions().lr * steps; }

}  // namespace stepscope::testing::ddp_fused
