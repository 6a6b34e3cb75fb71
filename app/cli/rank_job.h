// One rank of a torchrun-style job, as the distributed commands run it: a supervisor watching
// over the process (rendezvous deadline, signals, an end another rank posts, heartbeats for a
// launcher), the store at MASTER_ADDR:MASTER_PORT, the ranks' agreement on their settings,
// then the process group. Every way out is an exit status and one message on stderr naming
// the rank; a rank that cannot start tells the others.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>

#include "distributed/communicator.h"
#include "distributed/job_agreement.h"
#include "distributed/launch_env.h"

namespace stepscope::cli {

struct RankJobSpec {
  std::string command;  // "collectives", for messages
  distributed::TorchrunEnv env;
  CommBackend backend = CommBackend::gloo;
  std::chrono::milliseconds timeout{60'000};
  distributed::JobSettings settings;  // what every rank must share; the build is added
  bool worker_rows = false;    // a local launcher reads stdout: a heartbeat every second
  bool quiet = false;          // no waiting lines
  int cuda_device = -1;        // made current before the process group (NCCL's device)
};

// What a rank's body gets: the process group, and the lock it holds while writing to stdout
// (rows for a launcher) or files, so that the process never ends mid-write.
using RankBody = std::function<int(distributed::Communicator& comm, std::timed_mutex& output_lock)>;

// Joins the job and runs `body` on its process group. Returns the exit status: the body's;
// the agreed end's (2 when the ranks disagree, 1 when ranks are missing, ...); 1 after the body
// threw (the others are told). A signal, a missed rendezvous deadline or another rank's end
// ends the process from the supervisor's thread. Heartbeats go to `out`, messages to `err`.
int run_rank_job(const RankJobSpec& spec, const RankBody& body, std::ostream& out, std::ostream& err);

// A rank that cannot run its part (bad options, an output it cannot write on its node): says
// why on `err`, then posts it to the job so that every rank ends with it instead of waiting
// (rank 0 serves the store until the others have read it, up to `timeout`). Returns `status`.
int report_failure_to_job(const std::string& command, const distributed::TorchrunEnv& env, std::chrono::milliseconds timeout,
                          int status, const std::string& message, std::ostream& err);

}  // namespace stepscope::cli
