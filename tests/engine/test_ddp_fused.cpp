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
#include "compat/torch_compat.h"
#include "core/config_error.h"
#include "dist_test_support.h"
#include "distributed/ddp/gradient_sync.h"
#include "distributed/sharding/distributed_optimizer.h"
#include "experiments/ddp/ddp_case.h"
#include "experiments/ddp/ddp_sweep.h"
#include "model/fused/fused_lm.h"
#include "test_support.h"

using namespace stepscope;
using distributed::DdpVariant;
using distributed::OptimizerSharding;
using distributed::Zero1Gathers;

namespace {

constexpr int64_t kContext = 16;
constexpr uint64_t kSeed = 7;

// Built one after another: manual_seed is global and the rank threads share it.
std::shared_ptr<FusedTransformerLM> build_fused(c10::ScalarType compute = at::kFloat) {
  torch::manual_seed(kSeed);
  return std::make_shared<FusedTransformerLM>(stepscope::testing::parity_model(kContext), torch::TensorOptions().dtype(torch::kFloat32), compute);
}

struct Batch {
  at::Tensor inputs, targets;
};

Batch rank_batch(int rank) {
  auto generator = at::detail::createCPUGenerator(900 + static_cast<uint64_t>(rank));
  const auto ids = torch::TensorOptions().dtype(torch::kInt64);
  return {at::randint(256, {2, kContext}, generator, ids), at::randint(256, {2, kContext}, generator, ids)};
}

// Each rank's gradients at the initial weights, computed in this process.
std::vector<std::vector<at::Tensor>> per_rank_gradients(int ranks, c10::ScalarType compute = at::kFloat) {
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
void on_two_ranks(bool bf16, const std::function<void(distributed::Communicator&)>& body, bool average = false) {
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

// The bucketed sync over the fused model's own gradient buffer (DdpCase's choice for fused,
// bucketed, the optimizer on every rank, gradients reduced in the compute type): backward writes
// the projections' rows and reports them, hooks cast the other gradients into theirs, and each
// rank ends with the mean of the two ranks' autograd gradients (computed here without a buffer),
// every gradient a view of the buffer, the whole buffer all-reduced once in several buckets.
void check_buffer_sync(c10::ScalarType compute, bool average) {
  SCOPED_TRACE(std::string(c10::toString(compute)) + (average ? ", averaged by the collective" : ""));
  const bool bf16 = compute == at::kBFloat16;
  const auto grads = per_rank_gradients(2, compute);
  std::vector<std::shared_ptr<FusedTransformerLM>> models;
  for (int r = 0; r < 2; ++r) models.push_back(build_fused(compute));
  on_two_ranks(bf16, [&](distributed::Communicator& comm) {
    auto& model = *models[static_cast<size_t>(comm.rank())];
    model.set_gradient_buffer(at::zeros_like(model.compute_copy()));
    distributed::GradientSyncOptions options;
    options.variant = DdpVariant::bucketed;
    options.bucket_bytes = 16 << 10;
    if (bf16) options.reduce_dtype = at::kBFloat16;
    options.keep_reduce_dtype = true;
    distributed::GradientBufferLayout layout;
    layout.buffer = model.gradient_buffer();
    int64_t written = 0;
    for (const auto& rows : model.gradient_rows()) {
      layout.offsets.push_back(rows.first);
      layout.written_by_backward.push_back(rows.written_by_backward);
      written += rows.written_by_backward;
    }
    EXPECT_EQ(written, 7 * model.config().num_layers) << "q, k, v, output, w1, w3, w2 of every layer";
    options.gradient_buffer = layout;
    auto sync = distributed::make_gradient_sync(model.parameters(), comm, options);
    int reports = 0;
    model.set_gradient_rows_listener([&](int64_t first, int64_t numel) {
      ++reports;
      sync->rows_written(first, numel);
    });
    for (int step = 0; step < 2; ++step) {  // the buffer is reused: a second step averages afresh
      sync->begin_step();
      const Batch b = rank_batch(comm.rank());
      model.loss(b.inputs, b.targets).backward();
      const distributed::SyncTimings t = sync->finish();
      EXPECT_EQ(t.bytes, static_cast<int64_t>(layout.buffer.nbytes())) << "the whole buffer, once";
      EXPECT_GT(t.collectives, 2) << "several buckets";
    }
    model.set_gradient_rows_listener({});
    EXPECT_EQ(reports, 2 * 4 * model.config().num_layers) << "q|k|v, output, w1|w3, w2 of every layer, each step";
    const auto parameters = model.parameters();
    for (size_t i = 0; i < parameters.size(); ++i) {
      const at::Tensor& grad = parameters[i].grad();
      ASSERT_TRUE(grad.defined()) << "parameter " << i;
      EXPECT_EQ(grad.scalar_type(), compute) << "parameter " << i;
      EXPECT_EQ(grad.storage().data(), layout.buffer.storage().data()) << "parameter " << i << ": a view of the buffer";
      const at::Tensor got = grad.to(at::kFloat);
      const at::Tensor& a = grads[0][i];
      const at::Tensor& c = grads[1][i];
      const at::Tensor want = (a + c) / 2;
      // fp32: one summation order apart; bf16: each addend rounded to bf16, then their sum.
      const at::Tensor bound = bf16 ? (a.abs() + c.abs()) / 2 * std::ldexp(1.0, -7) + 1e-30
                                    : at::full_like(want, 1e-6 * want.abs().max().item<double>() + 1e-12);
      EXPECT_TRUE(((got - want).abs() <= bound).all().item<bool>()) << "rank " << comm.rank() << " parameter " << i;
    }
  }, average);
}

DdpConfig fused_row(DdpVariant variant, OptimizerSharding optimizer, Precision precision = Precision::fp32) {
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
std::vector<DdpResult> run_rows(const std::vector<DdpConfig>& configs, bool bf16_sums = false) {
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

std::vector<DdpConfig> every_variant_and_optimizer(Precision precision) {
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
double adamw_reach(int steps) { return 2 * AdamWOptions().lr * steps; }

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

TEST(DdpFusedSync, BucketsInTheModelsGradientBufferLeaveTheMean) {
  for (bool average : {false, true}) {
    check_buffer_sync(at::kFloat, average);
    check_buffer_sync(at::kBFloat16, average);
  }
}

TEST(DdpFusedSync, GradientBufferLayoutsThatCannotWorkAreRefused) {
  auto model = build_fused();
  model->set_gradient_buffer(at::zeros_like(model->compute_copy()));
  distributed::GradientBufferLayout layout;
  layout.buffer = model->gradient_buffer();
  for (const auto& rows : model->gradient_rows()) {
    layout.offsets.push_back(rows.first);
    layout.written_by_backward.push_back(rows.written_by_backward);
  }
  stepscope::testing::SoloCommunicator solo;
  const auto refused = [&](distributed::GradientSyncOptions options, const std::string& says) {
    try {
      distributed::make_gradient_sync(model->parameters(), solo, options);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  distributed::GradientSyncOptions options;
  options.variant = DdpVariant::bucketed;
  options.gradient_buffer = layout;
  EXPECT_NO_THROW(distributed::make_gradient_sync(model->parameters(), solo, options));
  options.variant = DdpVariant::flat;
  refused(options, "only the bucketed variant with all-reduce");
  options.variant = DdpVariant::bucketed;
  options.reduction = distributed::GradientReduction::reduce_scatter;
  refused(options, "only the bucketed variant with all-reduce");
  options.reduction = distributed::GradientReduction::all_reduce;
  options.reduce_dtype = at::kBFloat16;
  refused(options, "gradients are reduced in BFloat16");
  options.reduce_dtype.reset();
  options.gradient_buffer->offsets[2] = options.gradient_buffer->offsets[1];
  refused(options, "parameter 2's rows");
  options.gradient_buffer->offsets.pop_back();
  refused(options, "offsets and");
  // Rows reported that no parameter written by backward holds are a bug, not a silent no-op.
  options.gradient_buffer = layout;
  auto sync = distributed::make_gradient_sync(model->parameters(), solo, options);
  EXPECT_THROW(sync->rows_written(0, 1), std::logic_error) << "the embedding's rows come from autograd";
  options.gradient_buffer.reset();
  EXPECT_THROW(distributed::make_gradient_sync(model->parameters(), solo, options)->rows_written(0, 1), std::logic_error);
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

// Fused, bucketed, the optimizer on every rank, reduced in the compute type (fp32 with fp32, bf16
// with bf16): the buckets are slices of the model's gradient buffer, the whole buffer travels
// once a step, and training ends where one process does.
TEST(DdpFusedTraining, BucketsInTheGradientBufferTrainLikeOneProcess) {
  std::vector<DdpConfig> configs;
  for (Precision precision : {Precision::fp32, Precision::bf16}) {
    DdpConfig c = fused_row(DdpVariant::bucketed, OptimizerSharding::none, precision);
    c.reduce_dtype = precision;
    ASSERT_TRUE(reduces_in_gradient_buffer(c));
    configs.push_back(c);
  }
  const auto rows = run_rows(configs, true);
  ASSERT_EQ(rows.size(), 2u);
  torch::manual_seed(kSeed);
  const FusedTransformerLM model(stepscope::testing::parity_model(kContext), torch::TensorOptions(), at::kFloat);
  const auto flat_numel = static_cast<int64_t>(model.flat_parameters().numel());
  for (const auto& row : rows) {
    SCOPED_TRACE(describe(row.config));
    EXPECT_EQ(row.status, RunStatus::ok) << row.message;
    const bool bf16 = row.config.precision == Precision::bf16;
    EXPECT_EQ(row.comm_bytes, flat_numel * (bf16 ? 2 : 4));
    EXPECT_GE(row.max_param_diff, 0);
    EXPECT_LE(row.max_param_diff, bf16 ? adamw_reach(row.config.warmup_steps + row.config.measured_steps + 1) : 1e-5);
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

// --sm-carveout shapes GPU matmuls: refused by name on the CPU and out of range; the guard
// itself changes nothing at 0 and says where this build cannot carve SMs out.
TEST(DdpSmCarveout, RefusedWhereItCannotApply) {
  DdpConfig c = fused_row(DdpVariant::bucketed, OptimizerSharding::none);
  const auto field_of = [](const DdpConfig& config) {
    try {
      validate(config);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string();
  };
  EXPECT_EQ(field_of(c), "");
  c.sm_carveout = 16;
  EXPECT_EQ(field_of(c), "sm-carveout") << "the CPU has no SMs to leave";
  c.device = Device{DeviceKind::cuda, -1};
  c.backend = CommBackend::nccl;
  EXPECT_EQ(field_of(c), "");
  c.sm_carveout = -1;
  EXPECT_EQ(field_of(c), "sm-carveout");
  c.sm_carveout = kMaxSmCarveout + 1;
  EXPECT_EQ(field_of(c), "sm-carveout");
  c.sm_carveout = 16;
  EXPECT_NE(describe(c).find("matmuls leave 16 SMs"), std::string::npos) << describe(c);

  EXPECT_NO_THROW(compat::MatmulSmCarveout none(0));
  EXPECT_THROW(compat::MatmulSmCarveout negative(-1), std::invalid_argument);
  if (!compat::matmul_sm_carveout_available()) {
    EXPECT_THROW(compat::MatmulSmCarveout unavailable(8), std::runtime_error);
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
