// A rank's supervisor ends it promptly and says why, whatever its main thread is blocked in:
// driven here with an in-memory store and an end that records instead of exiting.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "distributed/rank_supervisor.h"
#include "types/memory_job_store.h"

namespace stepscope::distributed {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The supervisor's own connection: a view of the test's store.
class StoreView final : public JobStore {
 public:
  explicit StoreView(JobStore& store) : store_(store) {}
  void set(const std::string& key, const std::string& value) override { store_.set(key, value); }
  std::optional<std::string> get_if_set(const std::string& key) override { return store_.get_if_set(key); }
  int64_t add(const std::string& key, int64_t delta) override { return store_.add(key, delta); }

 private:
  JobStore& store_;
};

struct Recorder {
  std::mutex mutex;
  std::vector<std::string> said;
  std::atomic<bool> ended{false};
  std::atomic<int> status{-1};
  std::atomic<int> signal{-1};
  std::atomic<int> signal_received{0};
  std::atomic<int> heartbeats{0};
  Clock::time_point ended_at;

  bool wait_for_end(std::chrono::milliseconds limit = 5s) {
    const auto until = Clock::now() + limit;
    while (!ended && Clock::now() < until) std::this_thread::sleep_for(2ms);
    return ended;
  }
  std::string all_said() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string text;
    for (const auto& line : said) text += line + "\n";
    return text;
  }
};

SupervisorOptions options_for(int rank, int world, Recorder& r, testing::MemoryJobStore& store) {
  SupervisorOptions o;
  o.rank = rank;
  o.world_size = world;
  o.endpoint = "127.0.0.1:29500";
  o.rendezvous_timeout = 10s;
  o.tick = 5ms;
  o.store_poll = 10ms;
  o.linger = 1s;
  o.received_signal = [&r] { return r.signal_received.load(); };
  o.connect_store = [&store] { return std::make_unique<StoreView>(store); };
  o.say = [&r](const std::string& line) {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.said.push_back(line);
  };
  o.end_process = [&r](int status, int signal) {
    r.status = status;
    r.signal = signal;
    r.ended_at = Clock::now();
    r.ended = true;
  };
  return o;
}

TEST(RankSupervisor, AMissedRendezvousDeadlineEndsTheRankNamingWhatItWaitedFor) {
  testing::MemoryJobStore store;
  Recorder r;
  auto o = options_for(1, 2, r, store);
  o.rendezvous_timeout = 100ms;
  RankSupervisor supervisor(o);
  supervisor.set_activity("connecting to the job's store");
  ASSERT_TRUE(r.wait_for_end());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.all_said().find("rank 1: the rendezvous at 127.0.0.1:29500 did not complete within 0.1 s "
                              "(connecting to the job's store)"),
            std::string::npos)
      << r.all_said();
}

TEST(RankSupervisor, OnceTheRendezvousIsOverItsDeadlineNoLongerApplies) {
  testing::MemoryJobStore store;
  Recorder r;
  auto o = options_for(0, 2, r, store);
  o.rendezvous_timeout = 50ms;
  RankSupervisor supervisor(o);
  supervisor.rendezvous_over();
  std::this_thread::sleep_for(200ms);
  supervisor.stop();
  EXPECT_FALSE(r.ended);
}

TEST(RankSupervisor, ASignalIsPostedToTheJobThenEndsTheRankByThatSignal) {
  testing::MemoryJobStore store;
  Recorder r;
  RankSupervisor supervisor(options_for(1, 2, r, store));
  supervisor.attach_store();
  std::this_thread::sleep_for(30ms);
  const auto signalled = Clock::now();
  r.signal_received = SIGTERM;
  ASSERT_TRUE(r.wait_for_end());
  EXPECT_LT(std::chrono::duration<double>(r.ended_at - signalled).count(), 0.5) << "a non-zero rank does not linger";
  EXPECT_EQ(r.signal, SIGTERM);
  const auto posted = posted_abort(store);
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, kExitPeerEnded);
  EXPECT_EQ(posted->origin_rank, 1);
  EXPECT_EQ(posted->message, "rank 1 received SIGTERM (Terminated)");
  EXPECT_TRUE(wait_for_acknowledgements(store, 2, Clock::now())) << "it is done with rank 0's store";
  EXPECT_NE(r.all_said().find("rank 1 received SIGTERM (Terminated); stopping now"), std::string::npos) << r.all_said();
}

TEST(RankSupervisor, ASignalBeforeTheStoreIsUpEndsTheRankAtOnce) {
  testing::MemoryJobStore store;
  Recorder r;
  RankSupervisor supervisor(options_for(0, 2, r, store));
  r.signal_received = SIGINT;
  ASSERT_TRUE(r.wait_for_end(1s));
  EXPECT_EQ(r.signal, SIGINT);
  EXPECT_FALSE(posted_abort(store));
}

TEST(RankSupervisor, AnEndAnotherRankPostedEndsThisOneWithItsStatusAndWord) {
  testing::MemoryJobStore store;
  Recorder r;
  RankSupervisor supervisor(options_for(0, 2, r, store));
  supervisor.attach_store();
  supervisor.watch_job();
  post_abort(store, {kExitPeerEnded, 1, "rank 1 received SIGINT (Interrupt)"});
  acknowledge_abort(store);  // rank 1 read it: rank 0, the store's server, need not linger
  ASSERT_TRUE(r.wait_for_end(1s));
  EXPECT_EQ(r.status, kExitPeerEnded);
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.all_said().find("rank 0 stops: rank 1 received SIGINT (Interrupt)"), std::string::npos) << r.all_said();
}

// Before the ranks agreed, the agreement itself reports another rank's end.
TEST(RankSupervisor, BeforeTheAgreementAnotherRanksEndIsLeftToIt) {
  testing::MemoryJobStore store;
  Recorder r;
  RankSupervisor supervisor(options_for(1, 2, r, store));
  supervisor.attach_store();
  post_abort(store, {2, 0, "the ranks were started with different settings"});
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(r.ended);
  supervisor.stop();
}

TEST(RankSupervisor, ALauncherHearsAHeartbeatUntilTheRunIsOver) {
  testing::MemoryJobStore store;
  Recorder r;
  auto o = options_for(0, 1, r, store);
  o.heartbeat_every = 20ms;
  o.heartbeat = [&r] { ++r.heartbeats; };
  RankSupervisor supervisor(o);
  supervisor.rendezvous_over();
  std::this_thread::sleep_for(200ms);
  supervisor.stop();
  const int beats = r.heartbeats;
  EXPECT_GE(beats, 4);
  std::this_thread::sleep_for(60ms);
  EXPECT_EQ(r.heartbeats, beats);
}

TEST(RankSupervisor, TheRankNeverEndsInTheMiddleOfAWrite) {
  testing::MemoryJobStore store;
  Recorder r;
  RankSupervisor supervisor(options_for(1, 2, r, store));
  supervisor.attach_store();
  const auto writing = Clock::now();
  {
    std::lock_guard<std::timed_mutex> lock(supervisor.output_lock());
    r.signal_received = SIGTERM;
    std::this_thread::sleep_for(300ms);
    EXPECT_FALSE(r.ended);
  }
  ASSERT_TRUE(r.wait_for_end());
  EXPECT_GE(std::chrono::duration<double>(r.ended_at - writing).count(), 0.3);
}

TEST(RankSupervisor, AFailureOfTheMainThreadIsPostedForTheOthers) {
  testing::MemoryJobStore store;
  Recorder r;
  RankSupervisor supervisor(options_for(1, 2, r, store));
  supervisor.attach_store();
  supervisor.watch_job();
  ASSERT_TRUE(supervisor.claim_end());
  supervisor.post_failure("Connection closed by peer");
  const auto posted = posted_abort(store);
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->message, "rank 1 failed: Connection closed by peer");
  EXPECT_FALSE(r.ended) << "the main thread ends the process itself";
}

}  // namespace
}  // namespace stepscope::distributed
