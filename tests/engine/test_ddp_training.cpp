// Training parity of every DDP variant: the tiny Transformer trained 3 AdamW steps on 2 Gloo
// ranks (threads), each on its half of a fixed global batch, ends where one process training
// on the whole batch ends (fp32, CPU, 1e-5).
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "dist_test_support.h"
#include "dist/ddp/gradient_sync.h"
#include "model/adamw.h"
#include "model/loss.h"
#include "model/transformer_lm.h"
#include "test_support.h"

using namespace stepscope;

namespace {

constexpr int kSteps = 3;
constexpr int64_t kBatch = 4, kContext = 16;

ModelConfig parity_model() {
  ModelConfig config = with_context(model_preset("tiny"), kContext);
  config.vocab_size = 256;  // the handout's 10000 only slows the logits down
  return config;
}

// Built here, one after another: manual_seed is global and the rank threads share it.
TransformerLM build(uint64_t seed) {
  torch::manual_seed(seed);
  return TransformerLM(parity_model(), torch::TensorOptions().dtype(torch::kFloat32));
}

struct Batch {
  at::Tensor inputs, targets;
};

Batch global_batch(int step) {
  auto generator = at::detail::createCPUGenerator(500 + static_cast<uint64_t>(step));
  const auto ids = torch::TensorOptions().dtype(torch::kInt64);
  return {at::randint(256, {kBatch, kContext}, generator, ids), at::randint(256, {kBatch, kContext}, generator, ids)};
}

void train_step(TransformerLM& model, AdamW& optimizer, const Batch& batch, dist::GradientSync* sync) {
  if (sync) sync->begin_step();
  else optimizer.zero_grad();
  mean_cross_entropy(model(batch.inputs), batch.targets).backward();
  if (sync) sync->finish();
  optimizer.step();
}

void check_parity(const dist::GradientSyncOptions& options) {
  SCOPED_TRACE(dist::to_string(options.variant));
  constexpr int kRanks = 2;
  TransformerLM reference = build(7);
  // Rank 1 starts elsewhere: broadcast_parameters must bring it to rank 0's weights.
  std::vector<TransformerLM> models{build(7), build(8)};
  AdamW reference_optimizer(reference->parameters());
  for (int step = 0; step < kSteps; ++step) train_step(reference, reference_optimizer, global_batch(step), nullptr);

  stepscope::testing::on_gloo_ranks(kRanks, [&](dist::Communicator& comm) {
    TransformerLM& model = models[static_cast<size_t>(comm.rank())];
    auto sync = dist::make_gradient_sync(model->parameters(), comm, options);
    sync->broadcast_parameters();
    AdamW optimizer(model->parameters());
    const int64_t half = kBatch / kRanks, first = comm.rank() * half;
    for (int step = 0; step < kSteps; ++step) {
      const Batch whole = global_batch(step);
      train_step(model, optimizer, {whole.inputs.narrow(0, first, half), whole.targets.narrow(0, first, half)},
                 sync.get());
    }
  });
  const auto expected = reference->named_parameters();
  for (int r = 0; r < kRanks; ++r) {
    for (const auto& p : models[static_cast<size_t>(r)]->named_parameters()) {
      EXPECT_LE(stepscope::testing::max_abs_difference(p.value(), expected[p.key()]), 1e-5)
          << "rank " << r << " " << p.key();
    }
  }
}

}  // namespace

TEST(DdpTraining, EveryVariantMatchesOneProcess) {
  for (dist::DdpVariant variant : dist::all_ddp_variants()) {
    dist::GradientSyncOptions options;
    options.variant = variant;
    options.bucket_bytes = 16 << 10;  // several buckets; the embeddings' 64 KB alone
    check_parity(options);
  }
}
