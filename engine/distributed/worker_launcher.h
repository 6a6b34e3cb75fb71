// `--nproc N`: starts N local workers of a program, as `torchrun --standalone` does, hands on
// their stdout lines (results and progress) as they come, and ends them all when one fails,
// hangs or the user cancels. Plain C++ and POSIX: no LibTorch, no Qt.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "distributed/child_process.h"
#include "core/progress.h"

namespace stepscope::distributed {

inline constexpr int kMaxLocalWorkers = 256;

struct WorkerLaunchSpec {
  std::string program;             // a path; empty: the running executable (/proc/self/exe)
  std::vector<std::string> args;   // what every worker gets after argv[0]
  int nproc = 1;                   // workers, 1..kMaxLocalWorkers
  // Set in every worker on top of the inherited environment. The torchrun variables
  // (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE) are the
  // launcher's and override both.
  std::map<std::string, std::string> extra_env;
  // A worker that is still running and has written nothing (stdout or stderr) for this long is
  // taken as hung and the run ends.
  std::chrono::milliseconds timeout{60'000};
  // Before its first line, a worker has at least this long: loading LibTorch (and CUDA) takes
  // seconds on a busy machine, before anything can speak for it.
  std::chrono::milliseconds start_grace{20'000};
  // From SIGTERM to SIGKILL when the run ends early.
  std::chrono::milliseconds term_grace{2'000};
  std::string master_addr = "127.0.0.1";  // an IPv4 literal of this machine
  int master_port = 0;                    // 0: a free port, found by binding port 0
  int stderr_tail_lines = 40;             // kept per worker for the messages
};

// Both are called on the thread that runs the launcher; one that throws ends every worker
// and the exception leaves run().
struct WorkerCallbacks {
  std::function<void(int rank, const std::string& line)> on_line;         // each stdout line, no '\n'
  std::function<void(int rank, const std::string& line)> on_stderr_line;  // optional
};

enum class LaunchStatus { ok, failed, cancelled };
std::string to_string(LaunchStatus status);  // "ok", "failed", "cancelled"

struct WorkerExit {
  int rank = 0;
  pid_t pid = -1;
  ExitStatus status;
  bool stopped_by_launcher = false;  // it was still running when the launcher sent SIGTERM
  std::vector<std::string> stderr_tail;
};

struct LaunchOutcome {
  LaunchStatus status = LaunchStatus::ok;
  // ok: "2 workers exited with status 0"; cancelled: "cancelled"; failed: the cause naming the
  // rank ("rank 1 exited with status 3", "rank 1 was killed by signal 9 (Killed)", "rank 1 sent
  // nothing for 60 s (hung?)"), then the last stderr lines of the rank(s) at fault.
  std::string message;
  std::vector<int> failed_ranks;    // the ranks at fault, ascending (empty unless failed)
  std::vector<WorkerExit> workers;  // one per rank, in rank order
  int master_port = 0;
  bool ok() const { return status == LaunchStatus::ok; }
};

class WorkerLauncher {
 public:
  // Checks the spec; throws ConfigError naming the field ("nproc", "timeout", "extra_env"...).
  explicit WorkerLauncher(WorkerLaunchSpec spec);
  const WorkerLaunchSpec& spec() const { return spec_; }

  // Starts the workers (each the leader of its own process group, killed if this thread ends),
  // delivers their output until every one has ended, and returns how the run went; checks
  // `cancel` at least every 50 ms. When a worker exits non-zero or dies by a signal, when one is
  // silent for `timeout`, or on cancel, every worker still running gets SIGTERM and, after
  // `term_grace`, SIGKILL. Every worker is reaped on every path, and with it what is left of its
  // process group. Throws std::system_error naming the call that failed (the workers already
  // started are killed and reaped first). Call it from a thread that lives until it returns;
  // the process must not ignore SIGCHLD nor reap children it did not start.
  LaunchOutcome run(const WorkerCallbacks& callbacks, const CancelFlag* cancel = nullptr) const;

  // The environment of worker `rank`: the inherited one, then extra_env, then the torchrun
  // variables; "KEY=value" each.
  std::vector<std::string> worker_environment(int rank, int master_port) const;
  // argv of every worker: the program, then args.
  std::vector<std::string> worker_argv() const;

 private:
  WorkerLaunchSpec spec_;
};

}  // namespace stepscope::distributed
