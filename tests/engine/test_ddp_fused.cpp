// DDP with the fused engine and with bf16 gradient reduction, on Gloo ranks (threads) on the CPU:
// - every gradient sync leaves each rank the mean of the ranks' gradients of the fused model,
//   whose parameters are views of one flat buffer and whose gradients are row blocks of one
//   product (q | k | v, w1 | w3), computed here independently in one process; in bf16 within
//   bf16 rounding of the fp32 mean, cast back to fp32, with half the bytes;
// - every variant with every optimizer (the fused AdamW, the seeds' sharding, ZeRO-1 with its
//   gathers at the step's end or in the next forward pass) trains where one process of the
//   same engine on the whole batch ends (--check), fp32 within 1e-5 and bf16 within bf16's reach;
// - the fused model's compute copy follows parameters an optimizer moved, stage by stage.
// Gloo in LibTorch 1.13 sums no bf16: there bf16 sums go through Bf16SumsThroughFp32 (for two
// ranks the same result), and a plain Gloo group refuses --reduce-dtype bf16.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cmath>
#include <mutex>

#include "compat/c10d_compat.h"
#include "core/config_error.h"
#include "dist_test_support.h"
#include "distributed/ddp/gradient_sync.h"
#include "distributed/sharding/distributed_optimizer.h"
#include "experiments/ddp/ddp_case.h"
#include "experiments/ddp/ddp_sweep.h"
#include "model/fused/fused_lm.h"
#include "ddp_fused_test_support.h"
#include "test_support.h"

using namespace stepscope;
using distributed::DdpVariant;
using distributed::OptimizerSharding;
using distributed::Zero1Gathers;
using namespace stepscope::testing::ddp_fused;

namespace {

// `keep`: the means left in bf16 (keep_reduce_dtype), else cast back to fp32.
void check_fused_sync(DdpVariant variant, bool bf16, bool keep = false, bool average = false) {
  SCOPED_TRACE(distributed::to_string(variant) + (bf16 ? " bf16 reduce" : " fp32 reduce") + (keep ? ", kept" : "") +
               (average ? ", averaged by the collective" : ""));
  constexpr int kRanks = 2;
  const auto grads = per_rank_gradients(kRanks);
  std::vector<std::shared_ptr<FusedTransformerLM>> models;
  for (int r = 0; r < kRanks; ++r) models.push_back(build_fused());
  int64_t numel = 0;
  for (const auto& p : models[0]->parameters()) numel += p.numel();
  on_two_ranks(bf16, [&](distributed::Communicator& comm) {
    auto& model = *models[static_cast<size_t>(comm.rank())];
    distributed::GradientSyncOptions options;
    options.variant = variant;
    options.bucket_bytes = 16 << 10;  // several buckets, q | k | v and w1 | w3 split across some
    if (bf16) options.reduce_dtype = at::kBFloat16;
    options.keep_reduce_dtype = keep;
    auto sync = distributed::make_gradient_sync(model.parameters(), comm, options);
    sync->begin_step();
    const Batch b = rank_batch(comm.rank());
    model.loss(b.inputs, b.targets).backward();
    const distributed::SyncTimings t = sync->finish();
    EXPECT_EQ(t.bytes, numel * (bf16 ? 2 : 4)) << "every gradient once, in the reduce type";
    const auto parameters = model.parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
      ASSERT_TRUE(parameters[i].grad().defined()) << "parameter " << i;
      EXPECT_EQ(parameters[i].grad().scalar_type(), bf16 && keep ? at::kBFloat16 : at::kFloat) << "parameter " << i;
      EXPECT_TRUE(parameters[i].grad().is_contiguous()) << "parameter " << i;
      const at::Tensor got = parameters[i].grad().to(at::kFloat);
      const at::Tensor& a = grads[0][i];
      const at::Tensor& c = grads[1][i];
      const at::Tensor want = (a + c) / 2;
      if (!bf16) {
        EXPECT_LE(stepscope::testing::max_abs_difference(got, want), 1e-6 * want.abs().max().item<double>() + 1e-12)
            << "rank " << comm.rank() << " parameter " << i;
        continue;
      }
      // Each half rounded to bf16, their sum rounded again: within 2^-8 of the addends'
      // magnitude (2^-7 here, twice that), and every value a bf16 one.
      const at::Tensor bound = (a.abs() + c.abs()) / 2 * std::ldexp(1.0, -7) + 1e-30;
      EXPECT_TRUE(((got - want).abs() <= bound).all().item<bool>()) << "rank " << comm.rank() << " parameter " << i;
      EXPECT_TRUE(at::equal(got, got.to(at::kBFloat16).to(at::kFloat))) << "parameter " << i << " was summed in bf16";
    }
  }, average);
}

}  // namespace

TEST(DdpFusedSync, EveryVariantAveragesTheFusedGradients) {
  for (DdpVariant variant : distributed::all_ddp_variants()) check_fused_sync(variant, false);
}

TEST(DdpFusedSync, Bf16ReductionIsTheMeanWithinBf16AtHalfTheBytes) {
  for (DdpVariant variant : distributed::all_ddp_variants()) check_fused_sync(variant, true);
}

// For FusedAdamW, which reads bf16 gradients: the same means, left in bf16.
// NCCL averages in the all-reduce itself: the hooks then only copy (cast) each gradient.
TEST(DdpFusedSync, CollectivesThatAverageLeaveTheSameMeans) {
  for (DdpVariant variant : distributed::all_ddp_variants()) {
    check_fused_sync(variant, false, false, true);
    check_fused_sync(variant, true, true, true);
  }
}

TEST(DdpFusedSync, Bf16MeansCanStayBf16) {
  for (DdpVariant variant : distributed::all_ddp_variants()) check_fused_sync(variant, true, true);
}

TEST(DdpFusedTraining, EveryVariantAndOptimizerMatchesOneProcessInFp32) {
  const auto configs = every_variant_and_optimizer(Precision::fp32);
  const auto rows = run_rows(configs);
  torch::manual_seed(kSeed);
  const auto flat_bytes = FusedTransformerLM(stepscope::testing::parity_model(kContext), torch::TensorOptions(), at::kFloat).flat_parameters().nbytes();
  for (const auto& row : rows) {
    SCOPED_TRACE(describe(row.config));
    EXPECT_EQ(row.status, RunStatus::ok) << row.message;
    EXPECT_GE(row.max_param_diff, 0);
    EXPECT_LE(row.max_param_diff, 1e-5);
    EXPECT_GT(row.comm_bytes, 0);
    if (row.config.optimizer == OptimizerSharding::none) {
      EXPECT_EQ(row.optimizer_state_bytes, 2 * static_cast<int64_t>(flat_bytes)) << "FusedAdamW's moments, flat";
    } else {
      EXPECT_LT(row.optimizer_state_bytes, 2 * static_cast<int64_t>(flat_bytes)) << "sharded";
    }
  }
}

// bf16 compute (the fused engine's own bf16 copy, no autocast): the same training as one
// process within what bf16 reduction orders can move AdamW.
TEST(DdpFusedTraining, EveryVariantAndOptimizerMatchesOneProcessInBf16) {
  const auto configs = every_variant_and_optimizer(Precision::bf16);
  const auto rows = run_rows(configs);
  for (const auto& row : rows) {
    SCOPED_TRACE(describe(row.config));
    EXPECT_EQ(row.status, RunStatus::ok) << row.message;
    EXPECT_GE(row.max_param_diff, 0);
    EXPECT_LE(row.max_param_diff, adamw_reach(row.config.warmup_steps + row.config.measured_steps + 1));
  }
}

// --reduce-dtype bf16 with both engines and every variant: the row says so, its collectives
// carry half the bytes of fp32's, and training stays within bf16's reach of one process
// reducing in fp32.
TEST(DdpBf16Reduce, RowsCarryHalfTheBytesAndTrainLikeOneProcess) {
  std::vector<DdpConfig> configs;
  for (EngineKind engine : {EngineKind::eager, EngineKind::fused}) {
    for (DdpVariant variant : distributed::all_ddp_variants()) {
      for (OptimizerSharding optimizer : {OptimizerSharding::none, OptimizerSharding::zero1}) {
        DdpConfig c = fused_row(variant, optimizer);
        c.engine = engine;
        configs.push_back(c);
        c.reduce_dtype = Precision::bf16;
        configs.push_back(c);
      }
    }
  }
  const auto rows = run_rows(configs, true);
  ASSERT_EQ(rows.size(), configs.size());
  for (size_t i = 0; i + 1 < rows.size(); i += 2) {
    const DdpResult& fp32 = rows[i];
    const DdpResult& bf16 = rows[i + 1];
    SCOPED_TRACE(describe(bf16.config));
    EXPECT_NE(describe(bf16.config).find("bf16 reduce"), std::string::npos);
    EXPECT_EQ(fp32.status, RunStatus::ok) << fp32.message;
    EXPECT_EQ(bf16.status, RunStatus::ok) << bf16.message;
    EXPECT_GT(fp32.comm_bytes, 0);
    if (reduces_in_gradient_buffer(fp32.config)) {
      // fp32 in the fused model's buffer: its alignment padding travels too.
      torch::manual_seed(kSeed);
      const FusedTransformerLM model(stepscope::testing::parity_model(kContext), torch::TensorOptions(), at::kFloat);
      EXPECT_EQ(fp32.comm_bytes, static_cast<int64_t>(model.flat_parameters().nbytes()));
      int64_t numel = 0;
      for (const auto& p : model.parameters()) numel += p.numel();
      EXPECT_EQ(2 * bf16.comm_bytes, 4 * numel) << "bf16: the parameters' gradients alone";
    } else {
      EXPECT_EQ(2 * bf16.comm_bytes, fp32.comm_bytes);
    }
    EXPECT_LE(fp32.max_param_diff, 1e-5);
    EXPECT_GE(bf16.max_param_diff, 0);
    EXPECT_LE(bf16.max_param_diff, adamw_reach(bf16.config.warmup_steps + bf16.config.measured_steps + 1));
  }
}

TEST(DdpBf16Reduce, GlooWithoutBf16SumsRefusesIt) {
  if (compat::gloo_has_bfloat16()) GTEST_SKIP() << "this LibTorch's Gloo sums bf16";
  DdpConfig c = fused_row(DdpVariant::bucketed, OptimizerSharding::none);
  c.reduce_dtype = Precision::bf16;
  // Up front, before any rank starts (the CLI's and the form's check)...
  try {
    check_runnable(c);
    ADD_FAILURE() << "bf16 reduction on Gloo passed the launcher's check";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "reduce-dtype");
  }
  c.backend = CommBackend::nccl;
  c.device = Device{DeviceKind::cuda, -1};
  EXPECT_NO_THROW(check_runnable(c)) << "NCCL sums bf16";
  c.backend = CommBackend::gloo;
  c.device = Device{};
  // ... and by each rank's case, asking its group.
  stepscope::testing::on_gloo_ranks(2, [&](distributed::Communicator& comm) {
    try {
      run_ddp_sweep({c}, comm, nullptr, nullptr, nullptr);
      ADD_FAILURE() << "bf16 reduction on Gloo was not refused";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "reduce-dtype");
      EXPECT_NE(std::string(e.what()).find("sums no bf16"), std::string::npos) << e.what();
    }
  });
}

TEST(DdpBf16Reduce, Fp16IsRefusedByName) {
  DdpConfig c = fused_row(DdpVariant::flat, OptimizerSharding::none);
  c.reduce_dtype = Precision::fp16;
  try {
    validate(c);
    FAIL() << "fp16 reduction was not refused";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "reduce-dtype");
  }
}

TEST(DdpFusedOptimizer, OneGroupOverTheFlatBuffer) {
  auto model = build_fused(at::kBFloat16);
  auto optimizer = distributed::make_fused_distributed_optimizer(model->flat_parameters(), model->parameters(),
                                                                 model->compute_copy());
  EXPECT_EQ(optimizer->sharding(), OptimizerSharding::none);
  EXPECT_THROW(optimizer->add_param_group({{model->parameters()[0]}, {}}), std::invalid_argument);
}

// After an optimizer moved the parameters into buffers of its own (as ZeRO-1 does), the
// compute copy is refreshed from where they are: all of them, or one forward stage's, in the
// middle of a forward pass whose saved tensors stay valid for backward.
TEST(FusedComputeCopy, FollowsParametersWhereverTheyLive) {
  for (c10::ScalarType compute : {at::kFloat, at::kBFloat16}) {
    SCOPED_TRACE(c10::toString(compute));
    auto model = build_fused(compute);
    const auto parameters = model->parameters();
    const auto stages = model->parameter_stages();
    std::vector<at::Tensor> moved;
    {
      torch::NoGradGuard no_grad;
      for (auto p : parameters) {
        at::Tensor elsewhere = p.detach().clone().mul_(0.5);
        p.set_data(elsewhere);
        moved.push_back(elsewhere);
      }
    }
    // A fresh model of the same seed tells each parameter's offset in the flat buffer.
    auto fresh = build_fused(compute);
    std::vector<int64_t> offsets;
    const auto* base = static_cast<const char*>(fresh->flat_parameters().data_ptr());
    for (const auto& p : fresh->parameters()) offsets.push_back((static_cast<const char*>(p.data_ptr()) - base) / 4);
    const auto copy_of = [&](size_t i) {
      return model->compute_copy().narrow(0, offsets[i], parameters[i].numel()).view(parameters[i].sizes()).to(at::kFloat);
    };
    // One stage refreshed in the middle of a forward pass: backward still runs.
    const int refreshed = 2;
    bool seen = false;
    model->set_before_stage([&](int stage) {
      if (stage == refreshed) {
        model->refresh_compute_copy_from_parameters(stage);
        seen = true;
      }
    });
    const Batch b = rank_batch(0);
    model->loss(b.inputs, b.targets).backward();
    model->set_before_stage({});
    EXPECT_TRUE(seen);
    for (size_t i = 0; i < parameters.size(); ++i) {
      const bool matmul = parameters[i].dim() == 2 && stages[i] > 0;
      if (!matmul) continue;  // the embeddings and norms are read from the parameters themselves
      const bool fresh_now = at::equal(copy_of(i), moved[i].to(compute).to(at::kFloat));
      EXPECT_EQ(fresh_now, stages[i] == refreshed) << "parameter " << i << " of stage " << stages[i];
    }
    model->refresh_compute_copy_from_parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
      EXPECT_TRUE(at::equal(copy_of(i), moved[i].to(compute).to(at::kFloat))) << "parameter " << i;
    }
  }
}
