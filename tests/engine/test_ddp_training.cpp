// Training parity of every DDP variant with every optimizer sharding: the tiny Transformer
// trained 3 AdamW steps on Gloo ranks (threads), each on its share of a fixed global batch, ends
// where one process training on the whole batch ends (fp32, CPU, 1e-5); sharded state is 1/N
// per rank; parameter groups with their own learning rate, one added after the first step.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "dist_test_support.h"
#include "distributed/ddp/gradient_sync.h"
#include "distributed/sharding/distributed_optimizer.h"
#include "model/adamw.h"
#include "model/loss.h"
#include "model/transformer_lm.h"
#include "test_support.h"

using namespace stepscope;

namespace {

constexpr int kSteps = 3;
constexpr int64_t kContext = 16;

// Built here, one after another: manual_seed is global and the rank threads share it.
TransformerLM build(uint64_t seed) {
  torch::manual_seed(seed);
  return TransformerLM(stepscope::testing::parity_model(kContext), torch::TensorOptions().dtype(torch::kFloat32));
}

struct Batch {
  at::Tensor inputs, targets;
};

Batch global_batch(int step, int64_t rows) {
  auto generator = at::detail::createCPUGenerator(500 + static_cast<uint64_t>(step));
  const auto ids = torch::TensorOptions().dtype(torch::kInt64);
  return {at::randint(256, {rows, kContext}, generator, ids), at::randint(256, {rows, kContext}, generator, ids)};
}

// The split of the model's parameters into two groups with their own learning rates: the
// embeddings and the first block's, and the rest ("unfrozen" after the first step in one test).
struct Groups {
  std::vector<at::Tensor> early, late;
};
Groups split(TransformerLM& model) {
  Groups g;
  const auto parameters = model->parameters();
  for (size_t i = 0; i < parameters.size(); ++i) (i < parameters.size() / 2 ? g.early : g.late).push_back(parameters[i]);
  return g;
}
AdamWOptions lr(double value) {
  AdamWOptions o;
  o.lr = value;
  return o;
}

struct ParityCase {
  distributed::GradientSyncOptions sync;
  distributed::OptimizerSharding sharding = distributed::OptimizerSharding::none;
  int ranks = 2;
  bool late_group = false;  // the second group joins after the first step
  bool defer_gathers = false;  // zero1's all-gathers in the next forward pass, per stage
  int64_t chunk_elements = 0;  // the sharded groups' multi-tensor chunk; 0: AdamW's default
};

void check_parity(const ParityCase& c) {
  SCOPED_TRACE(distributed::to_string(c.sync.variant) + " " + distributed::to_string(c.sharding) + " x" + std::to_string(c.ranks) +
               (c.late_group ? " late group" : "") + (c.defer_gathers ? " gathers deferred" : ""));
  const int64_t batch = 2 * c.ranks;  // 2 rows per rank
  TransformerLM reference = build(7);
  std::vector<TransformerLM> models;
  for (int r = 0; r < c.ranks; ++r) models.push_back(build(7 + static_cast<uint64_t>(r)));  // broadcast fixes them
  {
    const Groups g = split(reference);
    AdamW early(g.early, lr(1e-3));
    std::unique_ptr<AdamW> late;
    if (!c.late_group) late = std::make_unique<AdamW>(g.late, lr(3e-3));
    for (int step = 0; step < kSteps; ++step) {
      const Batch whole = global_batch(step, batch);
      for (auto& p : reference->parameters()) p.mutable_grad() = at::Tensor();
      mean_cross_entropy(reference(whole.inputs), whole.targets).backward();
      early.step();
      if (late) late->step();
      if (!late) late = std::make_unique<AdamW>(g.late, lr(3e-3));
    }
  }
  std::vector<int64_t> state_bytes(static_cast<size_t>(c.ranks));
  stepscope::testing::on_gloo_ranks(c.ranks, [&](distributed::Communicator& comm) {
    TransformerLM& model = models[static_cast<size_t>(comm.rank())];
    distributed::GradientSyncOptions options = c.sync;
    options.reduction = c.sharding == distributed::OptimizerSharding::zero1 ? distributed::GradientReduction::reduce_scatter
                                                                     : distributed::GradientReduction::all_reduce;
    auto sync = distributed::make_gradient_sync(model->parameters(), comm, options);
    sync->broadcast_parameters();
    const Groups g = split(model);
    const auto options_with_lr = [&](double value) {
      AdamWOptions o = lr(value);
      if (c.chunk_elements > 0) o.chunk_elements = c.chunk_elements;
      return o;
    };
    std::vector<distributed::ParameterGroup> groups{{g.early, options_with_lr(1e-3)}};
    if (!c.late_group) groups.push_back({g.late, options_with_lr(3e-3)});
    auto optimizer = distributed::make_distributed_optimizer(c.sharding, *sync, groups, comm);
    // Stages the forward pass entered, and whether each found its parameters gathered.
    std::vector<int> entered;
    if (c.defer_gathers) {
      optimizer->defer_gathers_to_forward(model->parameter_stages());
      model->set_before_stage([&](int stage) {
        optimizer->before_stage(stage);
        entered.push_back(stage);
      });
    }
    const int64_t first = comm.rank() * 2;
    for (int step = 0; step < kSteps; ++step) {
      const Batch whole = global_batch(step, batch);
      sync->begin_step();
      optimizer->begin_forward();
      mean_cross_entropy(model(whole.inputs.narrow(0, first, 2)), whole.targets.narrow(0, first, 2)).backward();
      sync->finish();
      optimizer->step(*sync);
      if (c.late_group && step == 0) optimizer->add_param_group({g.late, lr(3e-3)});
    }
    optimizer->finish_pending();
    model->set_before_stage({});
    if (c.defer_gathers) {
      const int stages = static_cast<int>(stepscope::testing::parity_model(kContext).num_layers) + 2;
      EXPECT_EQ(entered.size(), static_cast<size_t>(kSteps * stages));
      for (size_t i = 0; i < entered.size(); ++i) EXPECT_EQ(entered[i], static_cast<int>(i) % stages);
    }
    state_bytes[static_cast<size_t>(comm.rank())] = optimizer->state_bytes();
  });
  const auto expected = reference->named_parameters();
  for (int r = 0; r < c.ranks; ++r) {
    for (const auto& p : models[static_cast<size_t>(r)]->named_parameters()) {
      EXPECT_LE(stepscope::testing::max_abs_difference(p.value(), expected[p.key()]), 1e-5)
          << "rank " << r << " " << p.key();
    }
  }
  // The state each rank holds: all of it, or 1/N (zero1: up to the padding; the seeds' design:
  // up to one parameter's worth, since parameters are assigned whole).
  int64_t whole = 0, largest = 0;
  for (const auto& p : reference->parameters()) {
    whole += 2 * p.numel() * 4;
    largest = std::max<int64_t>(largest, 2 * p.numel() * 4);
  }
  int64_t sum = 0;
  for (int64_t bytes : state_bytes) sum += bytes;
  for (int64_t bytes : state_bytes) {
    const double share = static_cast<double>(whole) / c.ranks;
    switch (c.sharding) {
      case distributed::OptimizerSharding::none: EXPECT_EQ(bytes, whole); break;
      case distributed::OptimizerSharding::sharded: EXPECT_LE(std::abs(bytes - share), largest); break;
      // At most one padding element (two moments of 4 bytes) per unit, and units <= parameters.
      case distributed::OptimizerSharding::zero1:
        EXPECT_LE(std::abs(bytes - share), 8.0 * static_cast<double>(reference->parameters().size()));
        break;
    }
  }
  if (c.sharding != distributed::OptimizerSharding::none) EXPECT_GE(sum, whole) << "every state held somewhere";
}

distributed::GradientSyncOptions sync_options(distributed::DdpVariant variant) {
  distributed::GradientSyncOptions options;
  options.variant = variant;
  options.bucket_bytes = 16 << 10;  // several buckets; the embeddings' 64 KB alone
  return options;
}

}  // namespace

TEST(DdpTraining, EveryVariantMatchesOneProcess) {
  for (distributed::DdpVariant variant : distributed::all_ddp_variants()) check_parity({sync_options(variant)});
}

TEST(DdpTraining, ShardedOptimizersMatchWithEveryVariant) {
  for (distributed::OptimizerSharding sharding : {distributed::OptimizerSharding::sharded, distributed::OptimizerSharding::zero1}) {
    for (distributed::DdpVariant variant : distributed::all_ddp_variants()) check_parity({sync_options(variant), sharding});
  }
}

// The parameters each forward stage uses are gathered before it runs: training still ends where
// one process ends, with every variant's units (per parameter, flat, buckets).
TEST(DdpTraining, Zero1WithItsGathersInTheNextForwardPassMatches) {
  for (distributed::DdpVariant variant : distributed::all_ddp_variants()) {
    ParityCase c{sync_options(variant), distributed::OptimizerSharding::zero1};
    c.defer_gathers = true;
    check_parity(c);
  }
  ParityCase uneven{sync_options(distributed::DdpVariant::bucketed), distributed::OptimizerSharding::zero1, 3};
  uneven.defer_gathers = true;
  check_parity(uneven);
}

// zero1 updates its units in batches of about a chunk and gathers each batch while the next is
// updated: chunks far smaller than the model make many batches, the gathers at the step's end
// or in the next forward pass.
TEST(DdpTraining, Zero1InManyUpdateBatchesMatches) {
  for (bool deferred : {false, true}) {
    ParityCase c{sync_options(distributed::DdpVariant::bucketed), distributed::OptimizerSharding::zero1};
    c.defer_gathers = deferred;
    c.chunk_elements = 5000;  // two 16 KB buckets' shares (2048 elements each) a batch
    check_parity(c);
  }
}

TEST(DdpTraining, ThreeRanksShardUnevenSizes) {
  // 3 does not divide the sizes: zero1 pads its units, the seeds' design balances whole ones.
  for (distributed::OptimizerSharding sharding : distributed::all_optimizer_shardings()) {
    check_parity({sync_options(distributed::DdpVariant::bucketed), sharding, 3});
  }
}

TEST(DdpTraining, AGroupAddedDuringTrainingJoinsOnEveryRank) {
  for (distributed::OptimizerSharding sharding : distributed::all_optimizer_shardings()) {
    check_parity({sync_options(distributed::DdpVariant::flat), sharding, 2, true});
  }
}

TEST(DdpTraining, GroupsRefuseStrangers) {
  stepscope::testing::on_gloo_ranks(1, [&](distributed::Communicator& comm) {
    TransformerLM model = build(7);
    const auto parameters = model->parameters();
    const auto sync_for = [&](distributed::OptimizerSharding sharding) {
      distributed::GradientSyncOptions options = sync_options(distributed::DdpVariant::bucketed);
      if (sharding == distributed::OptimizerSharding::zero1) options.reduction = distributed::GradientReduction::reduce_scatter;
      return distributed::make_gradient_sync(parameters, comm, options);
    };
    for (distributed::OptimizerSharding sharding : distributed::all_optimizer_shardings()) {
      auto sync = sync_for(sharding);
      auto optimizer = distributed::make_distributed_optimizer(sharding, *sync, {{{parameters[0]}, {}}}, comm);
      EXPECT_THROW(optimizer->add_param_group({{parameters[0]}, {}}), std::invalid_argument) << distributed::to_string(sharding);
    }
    auto sync = sync_for(distributed::OptimizerSharding::zero1);
    auto zero1 = distributed::make_distributed_optimizer(distributed::OptimizerSharding::zero1, *sync, {}, comm);
    EXPECT_THROW(zero1->add_param_group({{at::zeros({3}, at::TensorOptions().requires_grad(true))}, {}}),
                 std::invalid_argument);
  });
}

// zero1 moves every parameter into its unit's buffer (a parameter, the flat buffer or a bucket),
// laid out as the unit's gradients, so the shares are updated and gathered in place: the
// parameters keep their identity and values, and each unit's parameters share one storage at
// the unit's offsets.
TEST(DdpTraining, Zero1KeepsParametersInBuffersLaidOutAsTheUnits) {
  for (distributed::DdpVariant variant : distributed::all_ddp_variants()) {
    SCOPED_TRACE(distributed::to_string(variant));
    stepscope::testing::on_gloo_ranks(2, [&](distributed::Communicator& comm) {
      TransformerLM model = build(7);
      const auto parameters = model->parameters();
      std::vector<at::Tensor> before;
      std::vector<const void*> identity;
      for (const auto& p : parameters) {
        before.push_back(p.detach().clone());
        identity.push_back(p.unsafeGetTensorImpl());
      }
      distributed::GradientSyncOptions options = sync_options(variant);
      options.reduction = distributed::GradientReduction::reduce_scatter;
      auto sync = distributed::make_gradient_sync(parameters, comm, options);
      auto zero1 = distributed::make_distributed_optimizer(distributed::OptimizerSharding::zero1, *sync, {{parameters, {}}}, comm);
      const auto after = model->parameters();
      ASSERT_EQ(after.size(), parameters.size());
      const auto units = sync->units();
      ASSERT_EQ(units.size() == 1, variant == distributed::DdpVariant::flat);
      size_t covered = 0;
      for (const distributed::GradientUnit& unit : units) {
        EXPECT_EQ(unit.numel % 2, 0) << "padded to the ranks";
        const at::Tensor& first = after[unit.pieces.front().parameter];
        const auto* base = static_cast<const float*>(first.data_ptr()) - unit.pieces.front().unit_offset;
        for (const distributed::UnitPiece& piece : unit.pieces) {
          const at::Tensor& p = after[piece.parameter];
          ++covered;
          EXPECT_EQ(p.unsafeGetTensorImpl(), identity[piece.parameter]);
          EXPECT_TRUE(p.requires_grad());
          EXPECT_TRUE(p.is_leaf());
          EXPECT_TRUE(p.is_alias_of(first)) << "parameter " << piece.parameter;
          EXPECT_EQ(static_cast<const float*>(p.data_ptr()), base + piece.unit_offset) << "parameter " << piece.parameter;
          EXPECT_TRUE(at::equal(p.detach(), before[piece.parameter])) << "parameter " << piece.parameter;
        }
      }
      EXPECT_EQ(covered, parameters.size());
    });
  }
}

TEST(DdpTraining, Zero1RefusesASyncThatAllReduces) {
  stepscope::testing::on_gloo_ranks(1, [&](distributed::Communicator& comm) {
    TransformerLM model = build(7);
    auto sync = distributed::make_gradient_sync(model->parameters(), comm, sync_options(distributed::DdpVariant::flat));
    EXPECT_THROW(distributed::make_distributed_optimizer(distributed::OptimizerSharding::zero1, *sync, {}, comm), std::invalid_argument);
  });
}
