// The attention sweep on the CPU: its configurations, its refusals, its table, the FLOP
// convention and the memory the implementations keep for the backward pass.
#include <gtest/gtest.h>

#include "core/config_error.h"
#include "attention/attend.h"
#include "attention/attention_memory.h"
#include "compat/torch_compat.h"
#include "experiments/attention/attention_case.h"
#include "experiments/attention/attention_schema.h"
#include "experiments/attention/attention_sweep.h"
#include "io/table_csv.h"
#include "kernels/flash_attention_args.h"
#include "model/flops.h"
#include "core/phase_stats.h"

using namespace stepscope;

namespace {

AttentionConfig small(AttentionImpl impl, int64_t seq, bool causal = false) {
  AttentionConfig c;
  c.impl = impl;
  c.batch = 2;
  c.heads = 1;
  c.head_dim = 16;
  c.seq = seq;
  c.causal = causal;
  c.warmup_steps = 1;
  c.measured_steps = 3;
  return c;
}

std::vector<AttentionResult> run_all(const std::vector<AttentionConfig>& configs, int rounds = 1,
                                     ProgressSink* progress = nullptr, const CancelFlag* cancel = nullptr) {
  std::vector<AttentionResult> out;
  run_attention_sweep(configs, rounds, progress, cancel, [&](const AttentionResult& r) { out.push_back(r); });
  return out;
}

// The cases in the order they started measuring; cancels once `cancel_after` of them finished.
struct MeasuringOrder : ProgressSink {
  std::vector<std::string> labels;
  CancelFlag cancel;
  int cancel_after = -1;
  int done = 0;
  void on_progress(const Progress& p) override {
    if (p.phase == RunPhase::measuring && p.step == 0) labels.push_back(p.config_label);
    if (p.phase == RunPhase::done && ++done == cancel_after) cancel.cancel();
  }
};

}  // namespace

TEST(AttentionFlops, FlashAttentionsConventionAtTheLeaderboardShape) {
  // 4 * 1 * 16 * 16384^2 * 64 = 1,099,511,627,776, halved when causal.
  EXPECT_DOUBLE_EQ(attention_forward_flops(1, 16, 16384, 16384, 64, true), 549755813888.0);
  EXPECT_DOUBLE_EQ(attention_forward_flops(1, 16, 16384, 16384, 64, false), 1099511627776.0);
  EXPECT_DOUBLE_EQ(attention_backward_flops(1, 16, 16384, 16384, 64, true), 2.5 * 549755813888.0);
}

TEST(AttentionSweep, ExpandsEveryCombinationWithImplementationsSideBySide) {
  AttentionSweepSpec spec;
  spec.impls = {AttentionImpl::naive, AttentionImpl::flash};
  spec.head_dims = {16, 32};
  spec.seqs = {128, 256, 512};
  spec.precisions = {Precision::fp32, Precision::bf16};
  const auto configs = expand(spec);
  ASSERT_EQ(configs.size(), size_t{2 * 2 * 3 * 2});
  EXPECT_EQ(configs[0].impl, AttentionImpl::naive);
  EXPECT_EQ(configs[1].impl, AttentionImpl::flash);
  EXPECT_EQ(configs[1].seq, configs[0].seq);
  EXPECT_EQ(configs[2].seq, 256);
}

TEST(AttentionSweep, RefusesWhatCannotRunNamingTheField) {
  const auto field_of = [](AttentionConfig c) {
    try {
      check_runnable(c);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  AttentionConfig c = small(AttentionImpl::naive, 64);
  EXPECT_EQ(field_of(c), "accepted");
  c.seq = 0;
  EXPECT_EQ(field_of(c), "seq");
  c = small(AttentionImpl::naive, 64);
  c.batch = 0;
  EXPECT_EQ(field_of(c), "batch");
  c = small(AttentionImpl::naive, 64);
  c.measured_steps = 0;
  EXPECT_EQ(field_of(c), "steps");
  c = small(AttentionImpl::naive, 64);
  // A malformed device is refused where its text is read, naming the same field.
  try {
    parse_device("gpu0");
    ADD_FAILURE() << "gpu0 accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "device");
  }
  // The CUDA kernels' head dims are checked before anything runs, even without a GPU here.
  c = small(AttentionImpl::flash, 64);
  c.device = Device{DeviceKind::cuda, -1};
  c.head_dim = 1000;
  EXPECT_EQ(field_of(c), "d");
  c.device = Device{};  // the CPU reference takes any head dim
  EXPECT_EQ(field_of(c), "accepted");
  c = small(AttentionImpl::sdpa, 64);
  EXPECT_EQ(field_of(c), compat::has_scaled_dot_product_attention() ? "accepted" : "impl");
  EXPECT_THROW(parse_attention_impl("flash2"), ConfigError);
}

TEST(AttentionSweep, EveryImplementationRunsOnTheCpuAndIsCheckedAgainstNaive) {
  std::vector<AttentionConfig> configs;
  for (AttentionImpl impl : {AttentionImpl::naive, AttentionImpl::flash}) {
    configs.push_back(small(impl, 70, true));
    configs.push_back(small(impl, 70, false));
  }
  if (compat::has_scaled_dot_product_attention()) configs.push_back(small(AttentionImpl::sdpa, 70, true));
  for (const auto& r : run_all(configs)) {
    SCOPED_TRACE(describe(r.config));
    ASSERT_EQ(r.status, RunStatus::ok) << r.message;
    EXPECT_EQ(r.forward.count, 3);
    EXPECT_EQ(r.backward.count, 3);
    EXPECT_GT(r.forward.mean_ms, 0);
    EXPECT_NEAR(r.forward_backward.mean_ms, r.forward.mean_ms + r.backward.mean_ms, 1e-9);
    EXPECT_EQ(r.checked_seq, 70);
    EXPECT_GE(r.max_abs_error, 0);
    EXPECT_LE(r.max_abs_error, 1e-5);
    EXPECT_GT(r.memory_before_backward_bytes, 0);
    EXPECT_GE(r.peak_memory_bytes, r.memory_before_backward_bytes);
  }
}

TEST(AttentionSweep, NaiveKeepsTheSquareOfTheSequenceForBackwardAndFlashDoesNot) {
  const auto results = run_all({small(AttentionImpl::naive, 256), small(AttentionImpl::naive, 512),
                                small(AttentionImpl::flash, 256), small(AttentionImpl::flash, 512)});
  ASSERT_EQ(results.size(), size_t{4});
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r.config));
    ASSERT_EQ(r.status, RunStatus::ok) << r.message;
    // Measured: what is allocated before the backward pass, less the inputs (Q, K, V, dO).
    const AttentionMemory m = attention_memory(r.config);
    const double kept = static_cast<double>(r.memory_before_backward_bytes - m.inputs.bytes);
    EXPECT_NEAR(kept, static_cast<double>(m.saved.bytes), 0.1 * m.saved.bytes) << m.saved.formula;
  }
  // Doubling the sequence: about 4x for naive (P is seq^2), 2x for flash.
  const auto growth = [&](size_t a, size_t b) {
    const double base = static_cast<double>(attention_memory(results[a].config).inputs.bytes);
    return (results[b].memory_before_backward_bytes - 2 * base) / (results[a].memory_before_backward_bytes - base);
  };
  EXPECT_GT(growth(0, 1), 3.5);
  EXPECT_LT(growth(2, 3), 2.5);
}

TEST(AttentionSweep, TableHasTheIssuesColumnsFirstAndMarksOutOfMemory) {
  AttentionResult oom;
  oom.config = small(AttentionImpl::naive, 65536);
  oom.status = RunStatus::out_of_memory;
  oom.message = "estimated 1.1 TiB";
  const auto table = attention_schema().table({oom});
  const auto header = csv_header(table.columns);
  const std::vector<std::string> expected{"impl",     "batch",      "heads",      "d",          "seq",
                                          "precision", "causal",    "status",     "fwd_ms",     "bwd_ms",
                                          "fwd_bwd_ms", "fwd_tflops", "bwd_tflops", "mem_before_bwd_bytes",
                                          "peak_bytes", "max_abs_err"};
  ASSERT_GE(header.size(), expected.size());
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 16), expected);
  const auto row = csv_row(table.columns, table.rows[0]);
  EXPECT_EQ(row[7], "OOM");
  EXPECT_EQ(row[8], "");  // nothing measured
}

TEST(AttentionSweep, MedianAndMinimumColumnsCarryEachPhasesOwnPasses) {
  // Three passes per phase, one of them delayed: the mean moves, the median does not.
  AttentionResult r;
  r.config = small(AttentionImpl::flash, 256);
  r.forward = summarize_ns({1000000, 9000000, 2000000});
  r.backward = summarize_ns({3000000, 4000000, 5000000});
  r.forward_backward = summarize_ns({4000000, 13000000, 7000000});
  const auto table = attention_schema().table({r});
  const auto cell = [&](const char* key) {
    const int i = table.column_index(key);
    EXPECT_GE(i, 0) << key;
    return i < 0 ? -1.0 : std::stod(csv_row(table.columns, table.rows[0])[static_cast<size_t>(i)]);
  };
  EXPECT_DOUBLE_EQ(cell("fwd_ms"), 4.0);
  EXPECT_DOUBLE_EQ(cell("fwd_median_ms"), 2.0);
  EXPECT_DOUBLE_EQ(cell("fwd_min_ms"), 1.0);
  EXPECT_DOUBLE_EQ(cell("bwd_median_ms"), 4.0);
  EXPECT_DOUBLE_EQ(cell("bwd_min_ms"), 3.0);
  EXPECT_DOUBLE_EQ(cell("fwd_bwd_median_ms"), 7.0);
  EXPECT_DOUBLE_EQ(cell("fwd_bwd_min_ms"), 4.0);
  EXPECT_DOUBLE_EQ(cell("bwd_std_ms"), 1.0);
}

TEST(AttentionSweep, ACpuConfigurationThatClearlyCannotFitIsAnOutOfMemoryRowNotACrash) {
  AttentionConfig c = small(AttentionImpl::naive, 1 << 22);  // P alone: 2 * 2^44 floats
  const auto results = run_all({c});
  ASSERT_EQ(results.size(), size_t{1});
  EXPECT_EQ(results[0].status, RunStatus::out_of_memory);
  EXPECT_NE(results[0].message.find("estimate"), std::string::npos) << results[0].message;
}

TEST(AttentionSweep, TheCheckShortensTheSequenceWhereNaiveFp32WouldNotFit) {
  AttentionConfig c = small(AttentionImpl::flash, 1 << 20);
  c.batch = 8;
  const int64_t seq = checkable_seq(c, int64_t{64} << 30);
  EXPECT_LT(seq, c.seq);
  EXPECT_LE(static_cast<double>(seq) * seq * 8, double(int64_t{1} << 28));
  EXPECT_EQ(checkable_seq(small(AttentionImpl::flash, 300), int64_t{64} << 30), 300);
}

TEST(AttentionSweep, RoundsInterleaveTheImplementationsOfAShapeAndKeepEveryPass) {
  AttentionConfig naive = small(AttentionImpl::naive, 40, true), flash = small(AttentionImpl::flash, 40, true);
  naive.measured_steps = flash.measured_steps = 7;
  AttentionConfig longer = small(AttentionImpl::flash, 48, true);
  longer.measured_steps = 7;
  MeasuringOrder order;
  const auto results = run_all({naive, flash, longer}, 3, &order);
  // Shares of 3, 2 and 2 passes; the pair takes turns opening a round, the lone shape runs alone.
  const std::vector<std::string> expected{
      describe(naive) + " round 1/3", describe(flash) + " round 1/3", describe(flash) + " round 2/3",
      describe(naive) + " round 2/3", describe(naive) + " round 3/3", describe(flash) + " round 3/3",
      describe(longer) + " round 1/3", describe(longer) + " round 2/3", describe(longer) + " round 3/3"};
  EXPECT_EQ(order.labels, expected);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r.config));
    ASSERT_EQ(r.status, RunStatus::ok) << r.message;
    EXPECT_EQ(r.forward.count, 7);
    EXPECT_EQ(r.backward.count, 7);
    EXPECT_GE(r.max_abs_error, 0);  // checked once, in the first round
    EXPECT_LE(r.max_abs_error, 1e-5);
    EXPECT_GT(r.memory_before_backward_bytes, 0);
    EXPECT_GE(r.peak_memory_bytes, r.memory_before_backward_bytes);
  }
  // Each round builds the same inputs afresh: what is kept before the backward matches one round alone.
  const auto alone = run_all({naive});
  EXPECT_EQ(results[0].memory_before_backward_bytes, alone[0].memory_before_backward_bytes);
}

TEST(AttentionSweep, AnOutOfMemoryCaseIsNotRetriedInLaterRounds) {
  MeasuringOrder order;
  const auto results = run_all({small(AttentionImpl::naive, 1 << 22)}, 3, &order);  // P alone: 2 * 2^44 floats
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, RunStatus::out_of_memory);
  EXPECT_TRUE(order.labels.empty());
  EXPECT_EQ(order.done, 1);  // one attempt, not three
}

TEST(AttentionSweep, CancelledBetweenRoundsKeepsThePassesMeasured) {
  AttentionConfig naive = small(AttentionImpl::naive, 40), flash = small(AttentionImpl::flash, 40);
  naive.measured_steps = flash.measured_steps = 6;
  MeasuringOrder order;
  order.cancel_after = 2;  // after both finished round 1 of 3
  const auto results = run_all({naive, flash, small(AttentionImpl::flash, 48)}, 3, &order, &order.cancel);
  ASSERT_EQ(results.size(), 2u);  // the third shape never started
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r.config));
    EXPECT_EQ(r.status, RunStatus::cancelled);
    EXPECT_EQ(r.forward.count, 2);
    EXPECT_EQ(r.message, "cancelled after 2 of 6 measured passes");
    EXPECT_GE(r.max_abs_error, 0);
  }
}

