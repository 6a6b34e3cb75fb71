#include "distributed/worker_launcher.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "distributed/free_port.h"
#include "distributed/line_splitter.h"
#include "distributed/posix_call.h"
#include "distributed/rank_exit.h"
#include "core/config_error.h"
#include "core/size_limits.h"

namespace stepscope::distributed {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTick = std::chrono::milliseconds(50);  // the longest wait between checks
// Once every worker has ended, how long output still held in pipes may take to arrive (a
// process that left the worker's group could keep a pipe open for ever).
constexpr auto kDrainAfterExit = std::chrono::milliseconds(1000);
constexpr size_t kReadBytes = 64 * 1024;
constexpr const char* kSelfExe = "/proc/self/exe";

std::string running_executable() {
  char path[4096];
  const ssize_t n = readlink(kSelfExe, path, sizeof path - 1);
  if (n <= 0) return kSelfExe;  // argv[0] only; execve still gets /proc/self/exe
  return std::string(path, static_cast<size_t>(n));
}

std::string format_seconds(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
  return text;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

struct Worker {
  int rank = 0;
  std::unique_ptr<ChildProcess> process;
  LineSplitter stdout_lines;
  LineSplitter stderr_lines;
  LineTail stderr_tail{0};
  Clock::time_point last_output;
  bool spoke = false;  // has written something
  std::optional<Clock::time_point> seen_ended;  // when the launcher saw it had ended
  bool stopped_by_launcher = false;

  bool ended() const { return process->exit_status().has_value(); }
};

// One run of the launcher: the workers, the event loop and the teardown.
class LaunchRun {
 public:
  LaunchRun(const WorkerLauncher& launcher, const WorkerCallbacks& callbacks, const CancelFlag* cancel)
      : launcher_(launcher), spec_(launcher.spec()), callbacks_(callbacks), cancel_(cancel) {}

  LaunchOutcome run() {
    outcome_.master_port = spec_.master_port != 0 ? spec_.master_port : find_free_port(spec_.master_addr);
    start_workers();
    std::optional<Clock::time_point> kill_at;
    std::optional<Clock::time_point> all_ended_at;
    while (true) {
      pump_output();
      for (auto& worker : workers_) worker.process->poll_exit();
      const auto now = Clock::now();
      if (!kill_at && check_for_end(now)) {
        signal_running(SIGTERM);
        kill_at = now + spec_.term_grace;
      }
      if (kill_at && now >= *kill_at) signal_running(SIGKILL);
      const bool all_ended = std::all_of(workers_.begin(), workers_.end(), [](const Worker& w) { return w.ended(); });
      if (all_ended) {
        if (!all_ended_at) all_ended_at = now;
        if (!any_pipe_open() || now - *all_ended_at >= kDrainAfterExit) break;
      }
    }
    finish_output();
    return describe_outcome();
  }

 private:
  void start_workers() {
    const std::vector<std::string> argv = launcher_.worker_argv();
    const std::string program = spec_.program.empty() ? kSelfExe : spec_.program;
    workers_.resize(static_cast<size_t>(spec_.nproc));
    for (int rank = 0; rank < spec_.nproc; ++rank) {
      Worker& worker = workers_[static_cast<size_t>(rank)];
      worker.rank = rank;
      worker.stderr_tail = LineTail(static_cast<size_t>(spec_.stderr_tail_lines));
      worker.process =
          std::make_unique<ChildProcess>(program, argv, launcher_.worker_environment(rank, outcome_.master_port));
      worker.last_output = Clock::now();
    }
  }

  bool any_pipe_open() const {
    return std::any_of(workers_.begin(), workers_.end(), [](const Worker& w) {
      return w.process->stdout_pipe() || w.process->stderr_pipe();
    });
  }

  // Waits up to one tick for output and reads one chunk from each pipe that has some.
  void pump_output() {
    std::vector<pollfd> fds;
    std::vector<std::pair<Worker*, bool>> owners;  // worker, is stdout
    for (auto& worker : workers_) {
      for (const bool is_stdout : {true, false}) {
        const UniqueFd& fd = is_stdout ? worker.process->stdout_pipe() : worker.process->stderr_pipe();
        if (!fd) continue;
        fds.push_back({fd.get(), POLLIN, 0});
        owners.emplace_back(&worker, is_stdout);
      }
    }
    const int timeout_ms = static_cast<int>(kTick.count());
    const int ready = poll(fds.empty() ? nullptr : fds.data(), fds.size(), timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) return;
      throw_posix_error("poll");
    }
    for (size_t i = 0; i < fds.size() && ready > 0; ++i) {
      if (fds[i].revents & POLLNVAL) throw_posix_error("poll (pipe of a worker)", EBADF);
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_chunk(*owners[i].first, owners[i].second);
    }
  }

  void read_chunk(Worker& worker, bool is_stdout) {
    UniqueFd& fd = is_stdout ? worker.process->stdout_pipe() : worker.process->stderr_pipe();
    char buffer[kReadBytes];
    const ssize_t n = retry_on_eintr([&] { return read(fd.get(), buffer, sizeof buffer); });
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      throw_posix_error("read (output of rank " + std::to_string(worker.rank) + ")");
    }
    if (n == 0) {  // end of file
      (is_stdout ? worker.stdout_lines : worker.stderr_lines).finish(line_sink(worker, is_stdout));
      fd.reset();
      return;
    }
    worker.last_output = Clock::now();
    worker.spoke = true;
    (is_stdout ? worker.stdout_lines : worker.stderr_lines)
        .feed(std::string_view(buffer, static_cast<size_t>(n)), line_sink(worker, is_stdout));
  }

  std::function<void(const std::string&)> line_sink(Worker& worker, bool is_stdout) {
    if (is_stdout) {
      return [this, &worker](const std::string& line) {
        if (callbacks_.on_line) callbacks_.on_line(worker.rank, line);
      };
    }
    return [this, &worker](const std::string& line) {
      worker.stderr_tail.push(line);
      if (callbacks_.on_stderr_line) callbacks_.on_stderr_line(worker.rank, line);
    };
  }

  // Whether the run must end now (cancel, a failed worker, silent workers); records why. A
  // worker that ended because another rank of the job did (kExitPeerEnded) is not the cause:
  // for up to term_grace the launcher waits for the cause to end by itself, to name it.
  bool check_for_end(Clock::time_point now) {
    if (cancel_ && cancel_->is_cancelled()) {
      outcome_.status = LaunchStatus::cancelled;
      return true;
    }
    const Worker* cause = nullptr;
    const Worker* follower = nullptr;
    for (auto& worker : workers_) {
      if (!worker.ended()) continue;
      if (!worker.seen_ended) worker.seen_ended = now;
      const ExitStatus& status = *worker.process->exit_status();
      if (status.success()) continue;
      const Worker*& first = status.exited() && status.exit_code == kExitPeerEnded ? follower : cause;
      if (!first || *worker.seen_ended < *first->seen_ended) first = &worker;  // ties: the lower rank
    }
    if (cause || (follower && now - *follower->seen_ended >= spec_.term_grace)) {
      outcome_.status = LaunchStatus::failed;
      outcome_.failed_ranks = {(cause ? cause : follower)->rank};
      return true;
    }
    if (follower) return false;
    for (const auto& worker : workers_) {
      const auto allowed = worker.spoke ? spec_.timeout : std::max(spec_.timeout, spec_.start_grace);
      if (worker.ended() || now - worker.last_output < allowed) continue;
      outcome_.failed_ranks.push_back(worker.rank);
      silence_ = std::max(silence_, allowed);
    }
    if (outcome_.failed_ranks.empty()) return false;
    outcome_.status = LaunchStatus::failed;
    silent_ = true;
    return true;
  }

  void signal_running(int signal) {
    for (auto& worker : workers_) {
      if (worker.ended()) continue;
      worker.stopped_by_launcher = true;
      worker.process->signal_group(signal);
    }
  }

  void finish_output() {
    for (auto& worker : workers_) {
      worker.stdout_lines.finish(line_sink(worker, true));
      worker.stderr_lines.finish(line_sink(worker, false));
      worker.process->stdout_pipe().reset();
      worker.process->stderr_pipe().reset();
    }
  }

  LaunchOutcome describe_outcome() {
    for (const auto& worker : workers_) {
      outcome_.workers.push_back({worker.rank, worker.process->pid(), *worker.process->exit_status(),
                                  worker.stopped_by_launcher, worker.stderr_tail.lines()});
    }
    switch (outcome_.status) {
      case LaunchStatus::ok:
        outcome_.message = std::to_string(spec_.nproc) + (spec_.nproc == 1 ? " worker" : " workers") +
                           " exited with status 0";
        break;
      case LaunchStatus::cancelled:
        outcome_.message = "cancelled";
        break;
      case LaunchStatus::failed: {
        const int first = outcome_.failed_ranks.front();
        outcome_.message =
            silent_ ? rank_list(outcome_.failed_ranks) + " sent nothing for " + format_seconds(silence_) + " (hung?)"
                    : "rank " + std::to_string(first) + " " + describe(outcome_.workers[static_cast<size_t>(first)].status);
        for (const int rank : outcome_.failed_ranks) {
          const auto& tail = outcome_.workers[static_cast<size_t>(rank)].stderr_tail;
          if (tail.empty()) continue;
          outcome_.message += "\nlast stderr of rank " + std::to_string(rank) + ":";
          for (const auto& line : tail) outcome_.message += "\n  " + line;
        }
        break;
      }
    }
    return std::move(outcome_);
  }

  const WorkerLauncher& launcher_;
  const WorkerLaunchSpec& spec_;
  const WorkerCallbacks& callbacks_;
  const CancelFlag* cancel_;
  std::vector<Worker> workers_;  // destroyed on any exit: each kills and reaps its group
  LaunchOutcome outcome_;
  bool silent_ = false;
  std::chrono::milliseconds silence_{0};  // the longest silence allowed to a rank taken as hung
};

}  // namespace

std::string to_string(LaunchStatus status) {
  switch (status) {
    case LaunchStatus::ok: return "ok";
    case LaunchStatus::failed: return "failed";
    case LaunchStatus::cancelled: return "cancelled";
  }
  return "unknown";
}

WorkerLauncher::WorkerLauncher(WorkerLaunchSpec spec) : spec_(std::move(spec)) {
  if (spec_.nproc < 1 || spec_.nproc > kMaxLocalWorkers) {
    throw ConfigError("--nproc is " + std::to_string(spec_.nproc) + "; it must be from 1 to " +
                          std::to_string(kMaxLocalWorkers),
                      "nproc");
  }
  if (spec_.timeout.count() <= 0) throw ConfigError("the worker timeout must be positive", "timeout");
  if (spec_.start_grace.count() < 0) throw ConfigError("the start grace cannot be negative", "start_grace");
  if (spec_.term_grace.count() < 0) throw ConfigError("the grace before SIGKILL cannot be negative", "term_grace");
  if (spec_.master_port < 0 || spec_.master_port > 65535) {
    throw ConfigError("master port " + std::to_string(spec_.master_port) + " is out of range (0 to 65535)",
                      "master_port");
  }
  if (spec_.master_addr.empty()) throw ConfigError("the master address is empty", "master_addr");
  if (spec_.stderr_tail_lines < 0) throw ConfigError("stderr_tail_lines cannot be negative", "stderr_tail_lines");
  for (const auto& [key, value] : spec_.extra_env) {
    if (key.empty() || key.find_first_of(std::string("=\0", 2)) != std::string::npos ||
        value.find('\0') != std::string::npos) {
      throw ConfigError("environment variable \"" + key + "\" has an empty name or an '=' or NUL in its name",
                        "extra_env");
    }
  }
}

std::vector<std::string> WorkerLauncher::worker_argv() const {
  std::vector<std::string> argv{spec_.program.empty() ? running_executable() : spec_.program};
  argv.insert(argv.end(), spec_.args.begin(), spec_.args.end());
  return argv;
}

std::vector<std::string> WorkerLauncher::worker_environment(int rank, int master_port) const {
  std::map<std::string, std::string> overrides = spec_.extra_env;
  overrides["MASTER_ADDR"] = spec_.master_addr;
  overrides["MASTER_PORT"] = std::to_string(master_port);
  overrides["RANK"] = std::to_string(rank);
  overrides["WORLD_SIZE"] = std::to_string(spec_.nproc);
  overrides["LOCAL_RANK"] = std::to_string(rank);
  overrides["LOCAL_WORLD_SIZE"] = std::to_string(spec_.nproc);
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string variable = *entry;
    const size_t equals = variable.find('=');
    if (overrides.count(variable.substr(0, equals)) == 0) env.push_back(variable);
  }
  for (const auto& [key, value] : overrides) env.push_back(key + "=" + value);
  return env;
}

LaunchOutcome WorkerLauncher::run(const WorkerCallbacks& callbacks, const CancelFlag* cancel) const {
  return LaunchRun(*this, callbacks, cancel).run();
}

}  // namespace stepscope::distributed
