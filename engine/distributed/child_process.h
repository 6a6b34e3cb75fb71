// One child process and its process group, owned: whatever happens to the owner (return,
// exception), the destructor kills the group and reaps the child. No LibTorch, no Qt.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::distributed {

// A file descriptor, closed once.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the one held (close(2) is not retried on EINTR: Linux has released it already).
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// How a process ended.
struct ExitStatus {
  int exit_code = -1;  // its status when it exited; -1 when a signal ended it
  int signal = 0;      // the signal that ended it; 0 when it exited
  bool core_dumped = false;

  bool exited() const { return signal == 0; }
  bool success() const { return signal == 0 && exit_code == 0; }
};

// "Killed", "Terminated", "Segmentation fault"; "signal N" for one without a description.
std::string signal_description(int signal);
// "exited with status 3", "was killed by signal 9 (Killed)", "... (Segmentation fault, core dumped)".
std::string describe(const ExitStatus& status);

class ChildProcess {
 public:
  // Starts `program` (a path, not looked up in PATH) with `argv` (argv[0] included) and exactly
  // the environment `env` ("KEY=value" each) through fork + execve: stdin from /dev/null, stdout
  // and stderr into pipes, the leader of a new process group, and on Linux killed (SIGKILL) when
  // the thread that started it ends (PR_SET_PDEATHSIG; kept across execve). Signal mask and
  // dispositions start at their defaults. Throws std::system_error naming the failing call,
  // in the parent or in the child before execve ("execve(PROGRAM): No such file or directory").
  ChildProcess(const std::string& program, const std::vector<std::string>& argv, const std::vector<std::string>& env);
  // SIGKILL to the group if the child was not reaped yet, then reaps it. Never throws.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }  // also the id of its process group
  // The parent's read ends, non-blocking and close-on-exec; reset() them at end of file.
  UniqueFd& stdout_pipe() { return stdout_; }
  UniqueFd& stderr_pipe() { return stderr_; }

  // Sends `signal` to every process of the child's group; nothing once the child is reaped.
  void signal_group(int signal);
  // Never blocks. Once the child has ended: kills (SIGKILL) what is left of its group (its own
  // children that stayed there, which might hold the pipes open), reaps it and returns how it
  // ended; the same from then on. The group is killed while the child is still a zombie, so
  // its id cannot have been reused. nullopt while it runs.
  std::optional<ExitStatus> poll_exit();
  // Blocks until the child ends, then as poll_exit().
  ExitStatus wait();
  const std::optional<ExitStatus>& exit_status() const { return exit_; }

 private:
  std::optional<ExitStatus> reap_if_ended(bool block);

  pid_t pid_ = -1;
  UniqueFd stdout_;
  UniqueFd stderr_;
  std::optional<ExitStatus> exit_;
};

}  // namespace stepscope::distributed
