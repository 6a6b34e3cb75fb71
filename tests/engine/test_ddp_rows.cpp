// What a DDP row hands back on every rank (2 Gloo ranks as threads, the tiny model): each
// rank's own times with the combined row the slowest of them, and each rank's overlap picture
// whose spans say what the variant does: naive communicates only after backward, overlap
// starts its all-reduces while backward still runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include <torch/torch.h>

#include "distributed/rank_gather.h"
#include "dist_test_support.h"
#include "experiments/ddp/ddp_sweep.h"
#include "model/transformer_lm.h"

using namespace stepscope;

namespace {

DdpConfig tiny_row(distributed::DdpVariant variant) {
  DdpConfig c;
  c.variant = variant;
  c.model = model_preset("tiny");
  c.model.vocab_size = 256;
  c.context = 16;
  c.batch = 2;
  c.measured_steps = 2;
  c.warmup_steps = 0;
  return c;
}

DdpRowSet run_on_two_ranks(const DdpConfig& config) {
  std::mutex mutex;
  std::vector<DdpRowSet> seen(2);
  stepscope::testing::on_gloo_ranks(2, [&](distributed::Communicator& comm) {
    run_ddp_sweep({config}, comm, nullptr, nullptr, [&](const DdpRowSet& rows) {
      std::lock_guard<std::mutex> lock(mutex);
      seen[static_cast<size_t>(comm.rank())] = rows;
    });
  });
  EXPECT_EQ(seen[0].per_rank.size(), seen[1].per_rank.size());
  return seen[0];
}

size_t parameter_count(const DdpConfig& c) {
  return TransformerLM(with_context(c.model, c.context), torch::TensorOptions().dtype(torch::kFloat32))
      ->parameters()
      .size();
}

const TimelineSpan& phase(const RankStepTimeline& t, const std::string& name) {
  const auto it = std::find_if(t.spans.begin(), t.spans.end(), [&](const TimelineSpan& s) {
    return s.lane == TimelineLane::compute && s.name == name;
  });
  if (it == t.spans.end()) throw std::runtime_error("no " + name + " span");
  return *it;
}

std::vector<TimelineSpan> communication(const RankStepTimeline& t) {
  std::vector<TimelineSpan> out;
  for (const auto& s : t.spans) {
    if (s.lane == TimelineLane::communication) out.push_back(s);
  }
  return out;
}

}  // namespace

TEST(DdpRows, CombinedRowIsTheSlowestRankPerTime) {
  const DdpRowSet rows = run_on_two_ranks(tiny_row(distributed::DdpVariant::flat));
  ASSERT_EQ(rows.per_rank.size(), 2u);
  EXPECT_EQ(rows.combined.rank, -1);
  EXPECT_EQ(rows.combined.status, RunStatus::ok);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(rows.per_rank[static_cast<size_t>(r)].rank, r);
    EXPECT_GT(rows.per_rank[static_cast<size_t>(r)].step_ms, 0);
  }
  EXPECT_DOUBLE_EQ(rows.combined.step_ms, std::max(rows.per_rank[0].step_ms, rows.per_rank[1].step_ms));
  EXPECT_DOUBLE_EQ(rows.combined.backward_ms, std::max(rows.per_rank[0].backward_ms, rows.per_rank[1].backward_ms));
}

TEST(DdpRows, NaiveCommunicatesOnlyAfterBackward) {
  const DdpConfig config = tiny_row(distributed::DdpVariant::naive);
  const DdpRowSet rows = run_on_two_ranks(config);
  ASSERT_EQ(rows.timelines.size(), 2u);
  for (const auto& t : rows.timelines) {
    EXPECT_EQ(t.step, config.measured_steps);
    const double backward_end = phase(t, "backward").end_ms;
    EXPECT_LE(phase(t, "forward").end_ms, phase(t, "backward").start_ms);
    EXPECT_LE(backward_end, phase(t, "optimizer step").start_ms);
    const auto comm = communication(t);
    EXPECT_EQ(comm.size(), parameter_count(config)) << "one all-reduce per parameter";
    for (const auto& s : comm) {
      EXPECT_GE(s.start_ms, backward_end) << s.name;
      EXPECT_LE(s.start_ms, s.end_ms) << s.name;
    }
  }
}

TEST(DdpRows, OverlapStartsAllReducesDuringBackward) {
  const DdpRowSet rows = run_on_two_ranks(tiny_row(distributed::DdpVariant::overlap));
  ASSERT_EQ(rows.timelines.size(), 2u);
  for (const auto& t : rows.timelines) {
    const TimelineSpan& backward = phase(t, "backward");
    const auto comm = communication(t);
    ASSERT_FALSE(comm.empty());
    const auto during = std::count_if(comm.begin(), comm.end(), [&](const TimelineSpan& s) {
      return s.start_ms >= backward.start_ms && s.start_ms < backward.end_ms;
    });
    EXPECT_EQ(static_cast<size_t>(during), comm.size()) << "every hook fires inside backward";
  }
}

TEST(RankGather, TextOfDifferentLengthsReachesEveryRank) {
  std::mutex mutex;
  std::vector<std::vector<std::string>> seen(3);
  stepscope::testing::on_gloo_ranks(3, [&](distributed::Communicator& comm) {
    const std::string mine = comm.rank() == 1 ? std::string() : std::string(static_cast<size_t>(5 + 100 * comm.rank()), char('a' + comm.rank()));
    auto all = distributed::gather_text(comm, mine, c10::Device(c10::kCPU));
    std::lock_guard<std::mutex> lock(mutex);
    seen[static_cast<size_t>(comm.rank())] = std::move(all);
  });
  for (const auto& all : seen) {
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0], std::string(5, 'a'));
    EXPECT_EQ(all[1], "");
    EXPECT_EQ(all[2], std::string(205, 'c'));
  }
}
