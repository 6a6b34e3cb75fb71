// Watches over one rank of a job from threads of its own, so that the rank ends promptly and
// says why whatever its main thread is blocked in (a collective, a store call, Gloo's connect):
//  - a rendezvous that is not over by its deadline (a MASTER_PORT held by something that is not
//    the job's store, a peer that connected but never finished) ends the rank, naming it;
//  - SIGINT or SIGTERM (the first one) posts "rank R received SIGTERM" to the job and ends the
//    rank at once, by the same signal, so the launcher or torchrun names it; the others read
//    the post and end too: nobody waits in a collective for a peer that left;
//  - an end another rank posted ends this one, with the post's status and message;
//  - with a launcher reading its output, a heartbeat every second: a measurement longer than
//    the launcher's silence timeout is not a hang (collectives time out on their own).
// Rows already written stay: the process ends while holding the output lock, never mid-write.
// Plain C++ over JobStore; the process-ending step is injected for tests.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "distributed/job_agreement.h"
#include "distributed/job_store.h"
#include "distributed/rank_exit.h"

namespace stepscope::distributed {

struct SupervisorOptions {
  int rank = 0;
  int world_size = 1;
  std::string endpoint;                           // "HOST:PORT", for messages
  std::chrono::milliseconds rendezvous_timeout{60'000};  // from construction until rendezvous_over()
  std::chrono::milliseconds tick{50};
  std::chrono::milliseconds store_poll{200};
  std::chrono::milliseconds linger{2'000};        // rank 0 (the store's server) waits this long for others to read
  std::chrono::milliseconds heartbeat_every{0};   // 0: no heartbeat
  std::function<void()> heartbeat;                // called under the output lock
  std::function<int()> received_signal;           // the first SIGINT/SIGTERM received; 0 while none
  std::function<std::unique_ptr<JobStore>()> connect_store;  // a connection of the supervisor's own
  std::function<void(const std::string&)> say;    // one line on stderr
  // Ends the process: by `signal` when it is not 0, else with `status`. Called once, under the
  // output lock; in tests it records and returns.
  std::function<void(int status, int signal)> end_process;
};

class RankSupervisor {
 public:
  explicit RankSupervisor(SupervisorOptions options);
  ~RankSupervisor();  // stop()
  RankSupervisor(const RankSupervisor&) = delete;
  RankSupervisor& operator=(const RankSupervisor&) = delete;

  // What the rank is doing in the rendezvous, named when its deadline passes.
  void set_activity(const std::string& activity);
  // The job's store is up: the supervisor connects a client of its own (on its thread), so that
  // a signal from now on is posted to the other ranks before this one ends.
  void attach_store();
  // The ranks agreed: from now on an end posted by another rank ends this one (before, the
  // agreement itself reports it).
  void watch_job();
  // The process group is up: the rendezvous deadline no longer applies.
  void rendezvous_over();
  // The main thread takes over ending this rank (it failed, or saw why the job ended): false
  // when the supervisor is ending the process already (then stop() does not return).
  bool claim_end();
  // After claim_end(), this rank failed during the run: post why (status kExitPeerEnded for the
  // others) and, on rank 0, wait until the others have read it; then stop(). The caller exits.
  void post_failure(const std::string& message);
  // The run is over: the threads stop, nothing more ends the process.
  void stop();

  // What every write to stdout/stderr of a rank holds, so the process never ends mid-line.
  std::timed_mutex& output_lock() { return output_lock_; }

 private:
  void watch_loop();
  void store_loop();
  // Ends the process once; the caller claimed the end.
  void finish(int status, int signal, const std::string& message);
  // On the store thread: tells or acknowledges, then ends the process.
  void end_through_store(int status, int signal, const std::string& message);

  SupervisorOptions options_;
  std::chrono::steady_clock::time_point rendezvous_deadline_;
  std::timed_mutex output_lock_;
  std::mutex mutex_;  // guards activity_, stopping_, watching_, store_
  std::condition_variable wake_;
  std::string activity_ = "starting";
  bool stopping_ = false;
  bool attached_ = false;
  bool watching_ = false;
  std::optional<JobAbort> to_post_;  // handed to the store thread
  bool posted_ = false;
  std::atomic<bool> rendezvous_over_{false};
  std::atomic<bool> ending_{false};
  std::atomic<int> signal_to_post_{0};
  enum class StoreState { connecting, alive, gone };
  std::atomic<StoreState> store_state_{StoreState::connecting};
  std::unique_ptr<JobStore> store_;  // the supervisor's own connection, used on its store thread
  std::thread watch_thread_;
  std::thread store_thread_;
};

// "SIGTERM (Terminated)".
std::string signal_name(int signal);

}  // namespace stepscope::distributed
