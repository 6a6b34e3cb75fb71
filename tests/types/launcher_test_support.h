// What the launcher's tests share: workers as /bin/sh scripts, their output collected, and
// checks that no process a test started is left behind.
#pragma once

#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "distributed/worker_launcher.h"

namespace stepscope::distributed::launcher_testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

inline WorkerLaunchSpec shell_spec(int nproc, const std::string& script) {
  WorkerLaunchSpec spec;
  spec.program = "/bin/sh";
  spec.args = {"-c", script};
  spec.nproc = nproc;
  spec.timeout = 20s;  // far above what any test takes: only the hang test relies on it
  spec.start_grace = 0s;
  return spec;
}

struct Collected {
  std::map<int, std::vector<std::string>> out;
  std::map<int, std::vector<std::string>> err;
};

inline WorkerCallbacks collect_into(Collected& collected) {
  WorkerCallbacks callbacks;
  callbacks.on_line = [&collected](int rank, const std::string& line) { collected.out[rank].push_back(line); };
  callbacks.on_stderr_line = [&collected](int rank, const std::string& line) { collected.err[rank].push_back(line); };
  return callbacks;
}

inline double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Field `index` (1-based, as proc(5) counts) of /proc/PID/stat and the state letter; nullopt
// once the process is gone.
struct ProcStat {
  char state = '?';
  long ppid = 0;
  long pgrp = 0;
};
inline std::optional<ProcStat> proc_stat(long pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(file, text)) return std::nullopt;
  const size_t close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(close + 1));
  ProcStat stat;
  rest >> stat.state >> stat.ppid >> stat.pgrp;
  return stat;
}

// Every process for which `match` holds, zombies included.
template <typename Match>
std::vector<long> processes_where(Match match) {
  std::vector<long> pids;
  DIR* proc = opendir("/proc");
  if (!proc) throw std::runtime_error("opendir(/proc) failed");
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    if (const auto stat = proc_stat(pid); stat && match(*stat)) pids.push_back(pid);
  }
  closedir(proc);
  return pids;
}

inline std::vector<long> children_of_this_process() {
  const long self = getpid();
  return processes_where([self](const ProcStat& s) { return s.ppid == self; });
}

// Living members of process group `pgid` (a worker's group: the worker and what it started).
inline std::vector<long> living_members_of_group(long pgid) {
  return processes_where([pgid](const ProcStat& s) { return s.pgrp == pgid && s.state != 'Z'; });
}

// Whether process group `pgid` has no living member within `limit`: members killed with the
// group (a worker's own children) leave asynchronously, and on a loaded machine (CI building
// beside the tests) one was still there 350 ms after the launcher returned.
inline bool group_gone_within(long pgid, Clock::duration limit) {
  const auto until = Clock::now() + limit;
  while (!living_members_of_group(pgid).empty()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

inline void expect_nothing_left(const LaunchOutcome& outcome) {
  EXPECT_TRUE(children_of_this_process().empty()) << "a child of the test process is left";
  for (const auto& worker : outcome.workers) {
    EXPECT_TRUE(group_gone_within(worker.pid, 5s)) << "rank " << worker.rank << "'s group is alive";
  }
}

}  // namespace stepscope::distributed::launcher_testing
