// DDP over the fused model's own gradient buffer, on Gloo ranks (threads) on the CPU: with the
// fused engine, bucketed, the optimizer on every rank and gradients reduced in the compute type,
// the buckets are slices of the buffer backward writes the projections' gradients into; each
// rank ends with the mean, layouts that cannot work are refused, and training ends where one
// process does. Also --sm-carveout, the matmuls' SMs left to the collectives beside them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compat/torch_compat.h"
#include "core/config_error.h"
#include "ddp_fused_test_support.h"
#include "distributed/ddp/gradient_sync.h"
#include "experiments/ddp/ddp_case.h"
#include "test_support.h"

using namespace stepscope;
using namespace stepscope::testing::ddp_fused;

namespace {

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

}  // namespace

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
