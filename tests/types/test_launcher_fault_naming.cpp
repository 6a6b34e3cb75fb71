// How the launcher names what went wrong when ranks end together: the rank at fault rather
// than the ranks it took along, and a worker slow to start rather than a hung one.
#include <gtest/gtest.h>

#include "distributed/worker_launcher.h"
#include "types/launcher_test_support.h"

namespace stepscope::distributed {
namespace {

using namespace launcher_testing;

// A rank that ended because another rank did (exit status 3, kExitPeerEnded) is not named as
// the cause when the rank at fault ends a moment later.
TEST(WorkerLauncher, TheRankAtFaultIsNamedNotTheOnesItTookAlong) {
  const auto spec = shell_spec(2,
                               "if [ \"$RANK\" = 0 ]; then echo 'rank 0 stops: rank 1 received SIGINT' >&2; exit 3; fi; "
                               "sleep 0.3; kill -INT $$; sleep 30");
  const auto start = Clock::now();
  const LaunchOutcome outcome = WorkerLauncher(spec).run({});
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(outcome.status, LaunchStatus::failed);
  EXPECT_EQ(outcome.failed_ranks, std::vector<int>{1});
  EXPECT_EQ(outcome.message.rfind("rank 1 was killed by signal 2 (Interrupt)", 0), 0u) << outcome.message;
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, RanksThatOnlyFollowedAreNamedAfterTheGrace) {
  auto spec = shell_spec(2, "if [ \"$RANK\" = 1 ]; then exit 3; fi; exec sleep 30");
  spec.term_grace = std::chrono::milliseconds(300);
  const auto start = Clock::now();
  const LaunchOutcome outcome = WorkerLauncher(spec).run({});
  EXPECT_GE(seconds_since(start), 0.3);
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(outcome.failed_ranks, std::vector<int>{1});
  EXPECT_EQ(outcome.message.rfind("rank 1 exited with status 3", 0), 0u) << outcome.message;
  expect_nothing_left(outcome);
}

// Loading LibTorch takes seconds before a worker can say anything: a worker that has not spoken
// yet gets the start grace, then the timeout as usual.
TEST(WorkerLauncher, AWorkerSlowToStartIsGivenTheStartGrace) {
  auto spec = shell_spec(1, "sleep 1.5; echo started; sleep 0.5; echo done");
  spec.timeout = 1s;
  spec.start_grace = 3s;
  const LaunchOutcome outcome = WorkerLauncher(spec).run({});
  EXPECT_EQ(outcome.status, LaunchStatus::ok) << outcome.message;

  spec = shell_spec(1, "exec sleep 30");
  spec.timeout = 200ms;
  spec.start_grace = 1s;
  const auto start = Clock::now();
  const LaunchOutcome silent = WorkerLauncher(spec).run({});
  EXPECT_GE(seconds_since(start), 1.0);
  EXPECT_EQ(silent.message, "rank 0 sent nothing for 1 s (hung?)");
  expect_nothing_left(silent);
}

}  // namespace
}  // namespace stepscope::distributed
