// The ranks of a job agree on their settings before their first collective: threads play the
// ranks over an in-memory store; every rank must end with the same message and status.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "distributed/job_agreement.h"
#include "types/memory_job_store.h"

namespace stepscope::distributed {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct RankEnd {
  bool started = false;  // agree_on_job returned
  int status = 0;
  std::string message;
  double seconds = 0;
};

AgreementSpec spec_for(int rank, int world, JobSettings settings, std::chrono::milliseconds timeout = 3s) {
  AgreementSpec spec;
  spec.rank = rank;
  spec.world_size = world;
  spec.endpoint = "127.0.0.1:29500";
  spec.settings = std::move(settings);
  spec.timeout = timeout;
  spec.poll = 5ms;
  return spec;
}

RankEnd agree(JobStore& store, const AgreementSpec& spec) {
  RankEnd end;
  const auto start = Clock::now();
  try {
    agree_on_job(store, spec);
    end.started = true;
  } catch (const JobEnded& e) {
    end.status = e.abort().status;
    end.message = e.what();
  }
  end.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return end;
}

// Every rank of `specs` in a thread of its own.
std::vector<RankEnd> run_ranks(JobStore& store, const std::vector<AgreementSpec>& specs) {
  std::vector<RankEnd> ends(specs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < specs.size(); ++i) threads.emplace_back([&, i] { ends[i] = agree(store, specs[i]); });
  for (auto& t : threads) t.join();
  return ends;
}

JobSettings sizes(const std::string& value) { return {{{"--op", "allreduce"}, {"--sizes", value}, {"--iters", "20"}}}; }

TEST(JobAgreement, RanksWithTheSameSettingsStart) {
  testing::MemoryJobStore store;
  const auto ends = run_ranks(store, {spec_for(0, 3, sizes("1000000")), spec_for(1, 3, sizes("1000000")),
                                      spec_for(2, 3, sizes("1000000"))});
  for (const auto& end : ends) EXPECT_TRUE(end.started) << end.message;
}

TEST(JobAgreement, ADifferingOptionEndsEveryRankNamingItAndTheRanks) {
  testing::MemoryJobStore store;
  const auto ends = run_ranks(store, {spec_for(0, 2, sizes("1000000")), spec_for(1, 2, sizes("2000000"))});
  for (const auto& end : ends) {
    EXPECT_FALSE(end.started);
    EXPECT_EQ(end.status, 2);
    EXPECT_NE(end.message.find("--sizes (rank 0: 1000000, rank 1: 2000000)"), std::string::npos) << end.message;
    EXPECT_EQ(end.message.find("--iters"), std::string::npos) << "only what differs: " << end.message;
    EXPECT_LT(end.seconds, 2.0);
  }
}

TEST(JobAgreement, RanksDisagreeingOnTheWorldSizeAreNamed) {
  testing::MemoryJobStore store;
  const auto ends = run_ranks(store, {spec_for(0, 2, sizes("1")), spec_for(1, 3, sizes("1"))});
  for (const auto& end : ends) {
    EXPECT_EQ(end.status, 2);
    EXPECT_NE(end.message.find("WORLD_SIZE (rank 0: 2, rank 1: 3)"), std::string::npos) << end.message;
  }
}

// A rank beyond rank 0's world is never waited for; it finds the difference itself, and its
// word ends the job rank 0 started.
TEST(JobAgreement, ARankBeyondRankZerosWorldEndsTheJob) {
  testing::MemoryJobStore store;
  const auto ends = run_ranks(store, {spec_for(0, 2, sizes("1")), spec_for(1, 2, sizes("1")), spec_for(2, 3, sizes("1"))});
  EXPECT_EQ(ends[2].status, 2);
  EXPECT_NE(ends[2].message.find("WORLD_SIZE (rank 0: 2, rank 2: 3)"), std::string::npos) << ends[2].message;
  const auto posted = posted_abort(store);
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->origin_rank, 2);
}

TEST(JobAgreement, MissingRanksAreNamedAtTheDeadline) {
  testing::MemoryJobStore store;
  std::vector<std::string> said;
  auto zero = spec_for(0, 4, sizes("1"), 300ms);
  zero.say = [&](const std::string& line) { said.push_back(line); };
  const auto ends = run_ranks(store, {zero, spec_for(2, 4, sizes("1"), 300ms)});
  ASSERT_FALSE(said.empty());
  EXPECT_EQ(said.front(), "waiting for 3 of 4 ranks at 127.0.0.1:29500");
  EXPECT_EQ(ends[0].status, 1);
  EXPECT_NE(ends[0].message.find("for ranks 1, 3 of 4, which never joined"), std::string::npos) << ends[0].message;
  EXPECT_GE(ends[0].seconds, 0.3);
  EXPECT_LT(ends[0].seconds, 1.5);
  // Rank 2 joined: it ends with rank 0's word, not a timeout of its own.
  EXPECT_EQ(ends[1].status, 1);
  EXPECT_EQ(ends[1].message, ends[0].message);
}

TEST(JobAgreement, ARankWithoutRankZeroSaysSo) {
  testing::MemoryJobStore store;
  const auto end = agree(store, spec_for(1, 2, sizes("1"), 200ms));
  EXPECT_EQ(end.status, 1);
  EXPECT_NE(end.message.find("rank 0 never reported"), std::string::npos) << end.message;
}

TEST(JobAgreement, ARankThatCannotRunEndsTheOthersWithItsWordAndStatus) {
  testing::MemoryJobStore store;
  std::thread failing([&] { post_abort(store, {2, 1, "rank 1 cannot run: --csv: cannot write /nope/x.csv"}); });
  const auto end = agree(store, spec_for(0, 2, sizes("1")));
  failing.join();
  EXPECT_EQ(end.status, 2);
  EXPECT_EQ(end.message, "rank 1 cannot run: --csv: cannot write /nope/x.csv");
  EXPECT_LT(end.seconds, 1.0);
}

TEST(JobAgreement, TwoProcessesClaimingOneRankAreRefused) {
  testing::MemoryJobStore store;
  std::vector<RankEnd> ends(3);
  std::thread first([&] { ends[1] = agree(store, spec_for(1, 2, sizes("1"))); });
  std::thread second([&] { ends[2] = agree(store, spec_for(1, 2, sizes("1"))); });
  while (store.add("stepscope/claims/1", 0) < 2) std::this_thread::sleep_for(1ms);
  ends[0] = agree(store, spec_for(0, 2, sizes("1")));
  first.join();
  second.join();
  for (const auto& end : ends) {
    EXPECT_EQ(end.status, 2);
    EXPECT_NE(end.message.find("two processes were started as rank 1"), std::string::npos) << end.message;
  }
}

TEST(JobAgreement, TheFirstPostedEndStands) {
  testing::MemoryJobStore store;
  EXPECT_EQ(post_abort(store, {3, 1, "rank 1 received SIGINT"}).message, "rank 1 received SIGINT");
  EXPECT_EQ(post_abort(store, {3, 0, "rank 0 failed"}).message, "rank 1 received SIGINT");
  acknowledge_abort(store);
  EXPECT_TRUE(wait_for_acknowledgements(store, 2, Clock::now()));
  EXPECT_FALSE(wait_for_acknowledgements(store, 3, Clock::now() + 20ms, 5ms));
}

TEST(JobSettings, EncodeAndDecodeKeepNewlinesAndEqualsInValues) {
  const JobSettings settings{{{"--model", "custom d_model=64\nlayers=2"}, {"a\\b", ""}}};
  const JobSettings back = JobSettings::decode(settings.encode());
  EXPECT_EQ(back.entries, settings.entries);
  EXPECT_EQ(JobSettings::differences(settings, 0, back, 1), "");
  EXPECT_EQ(JobSettings::differences(settings, 0, JobSettings{{{"--model", "x"}}}, 3),
            "--model (rank 0: custom d_model=64\nlayers=2, rank 3: x); a\\b (rank 0: (empty), rank 3: (not set))");
}

}  // namespace
}  // namespace stepscope::distributed
