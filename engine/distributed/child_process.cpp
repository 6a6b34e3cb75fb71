#include "distributed/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>

#include "distributed/posix_call.h"

namespace stepscope::distributed {
namespace {

// What the child tells the parent when it fails before execve: which step, and errno.
struct ChildFailure {
  int step = 0;
  int error_number = 0;
};
constexpr std::array<const char*, 5> kChildSteps = {"setpgid", "prctl(PR_SET_PDEATHSIG)", "dup2",
                                                    "sigprocmask", "execve"};
enum ChildStep { kSetpgid, kPrctl, kDup2, kSigprocmask, kExecve };

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Pipe make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw_posix_error("pipe2");
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) throw_posix_error("fcntl(F_GETFL)");
  if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) throw_posix_error("fcntl(F_SETFL)");
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// Runs in the child between fork and execve: async-signal-safe calls only, no allocation.
[[noreturn]] void fail_in_child(int report_fd, int step) {
  const ChildFailure failure{step, errno};
  // Nothing more to do if the report cannot be written: the parent then sees status 127.
  [[maybe_unused]] const ssize_t n = write(report_fd, &failure, sizeof failure);
  _exit(127);
}

// dup2 onto `target`; when the descriptor already is `target`, dup2 would keep its
// close-on-exec flag, so clear that instead.
bool move_to(int fd, int target) {
  if (fd == target) return fcntl(fd, F_SETFD, 0) == 0;
  return retry_on_eintr([&] { return dup2(fd, target); }) == target;
}

[[noreturn]] void exec_in_child(const char* program, char* const* argv, char* const* envp, int stdin_fd,
                                int stdout_fd, int stderr_fd, int report_fd, pid_t parent) {
  if (setpgid(0, 0) != 0) fail_in_child(report_fd, kSetpgid);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail_in_child(report_fd, kPrctl);
  // The parent died before prctl took effect: nobody would ever kill or reap this worker.
  if (getppid() != parent) _exit(127);
  if (!move_to(stdin_fd, STDIN_FILENO) || !move_to(stdout_fd, STDOUT_FILENO) ||
      !move_to(stderr_fd, STDERR_FILENO)) {
    fail_in_child(report_fd, kDup2);
  }
  // Default dispositions (an ignored SIGPIPE or SIGINT would survive execve), then unblock
  // everything the parent blocked around fork. Errors for SIGKILL, SIGSTOP and the C
  // library's reserved signals are expected and harmless.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  if (sigprocmask(SIG_SETMASK, &none, nullptr) != 0) fail_in_child(report_fd, kSigprocmask);
  execve(program, argv, envp);
  fail_in_child(report_fd, kExecve);
}

ExitStatus decode(int status) {
  ExitStatus exit;
  if (WIFEXITED(status)) {
    exit.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    exit.signal = WTERMSIG(status);
    exit.core_dumped = WCOREDUMP(status);
  }
  return exit;
}

}  // namespace

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

std::string signal_description(int signal) {
  const char* description = sigdescr_np(signal);
  return description ? description : "signal " + std::to_string(signal);
}

std::string describe(const ExitStatus& status) {
  if (status.exited()) return "exited with status " + std::to_string(status.exit_code);
  return "was killed by signal " + std::to_string(status.signal) + " (" + signal_description(status.signal) +
         (status.core_dumped ? ", core dumped)" : ")");
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& argv,
                           const std::vector<std::string>& env) {
  // Everything the child needs is built here: after fork it may not allocate.
  const std::vector<char*> argv_c = c_strings(argv);
  const std::vector<char*> env_c = c_strings(env);
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  Pipe report = make_pipe();  // close-on-exec: end of file once execve succeeded
  UniqueFd null_input(retry_on_eintr([] { return open("/dev/null", O_RDONLY | O_CLOEXEC); }));
  if (!null_input) throw_posix_error("open(/dev/null)");
  const pid_t parent = getpid();

  // No signal handler of ours may run in the child before its dispositions are reset.
  sigset_t all, previous;
  sigfillset(&all);
  if (const int rc = pthread_sigmask(SIG_SETMASK, &all, &previous); rc != 0) throw_posix_error("pthread_sigmask", rc);
  const pid_t pid = fork();
  if (pid == 0) {
    exec_in_child(program.c_str(), argv_c.data(), env_c.data(), null_input.get(), out.write.get(),
                  err.write.get(), report.write.get(), parent);
  }
  const int fork_errno = errno;
  if (const int rc = pthread_sigmask(SIG_SETMASK, &previous, nullptr); rc != 0) {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    throw_posix_error("pthread_sigmask", rc);
  }
  if (pid < 0) throw_posix_error("fork", fork_errno);
  pid_ = pid;
  // A constructor that throws runs no destructor: each failure below kills and reaps by hand.

  out.write.reset();
  err.write.reset();
  report.write.reset();
  ChildFailure failure;
  const ssize_t n = retry_on_eintr([&] { return read(report.read.get(), &failure, sizeof failure); });
  if (n != 0) {
    const int read_errno = errno;
    kill(pid, SIGKILL);  // it is exiting already when it wrote a report
    retry_on_eintr([&] { return waitpid(pid, nullptr, 0); });
    if (n < 0) throw_posix_error("read(exec report)", read_errno);
    if (n != static_cast<ssize_t>(sizeof failure) || failure.step < 0 ||
        failure.step >= static_cast<int>(kChildSteps.size())) {
      throw std::runtime_error("starting " + program + ": the child sent an unreadable report");
    }
    const std::string step = kChildSteps[static_cast<size_t>(failure.step)];
    throw_posix_error(failure.step == kExecve ? step + "(" + program + ")" : step + " in the child of " + program,
                      failure.error_number);
  }
  try {
    set_nonblocking(out.read.get());
    set_nonblocking(err.read.get());
  } catch (...) {
    kill(-pid, SIGKILL);
    retry_on_eintr([&] { return waitpid(pid, nullptr, 0); });
    throw;
  }
  stdout_ = std::move(out.read);
  stderr_ = std::move(err.read);
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0 || exit_) return;
  kill(-pid_, SIGKILL);
  retry_on_eintr([&] { return waitpid(pid_, nullptr, 0); });
}

void ChildProcess::signal_group(int signal) {
  if (exit_) return;
  if (kill(-pid_, signal) != 0 && errno != ESRCH) {
    throw_posix_error("kill(-" + std::to_string(pid_) + ", " + std::to_string(signal) + ")");
  }
}

std::optional<ExitStatus> ChildProcess::poll_exit() { return reap_if_ended(false); }

ExitStatus ChildProcess::wait() { return *reap_if_ended(true); }

std::optional<ExitStatus> ChildProcess::reap_if_ended(bool block) {
  if (exit_) return exit_;
  siginfo_t info{};
  const int flags = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
  if (retry_on_eintr([&] { return waitid(P_PID, static_cast<id_t>(pid_), &info, flags); }) != 0) {
    throw_posix_error("waitid(" + std::to_string(pid_) + ")");
  }
  if (info.si_pid == 0) return std::nullopt;  // still running
  // Still a zombie, so its group id is still ours: end what is left of the group.
  if (kill(-pid_, SIGKILL) != 0 && errno != ESRCH) throw_posix_error("kill(-" + std::to_string(pid_) + ", SIGKILL)");
  int status = 0;
  if (retry_on_eintr([&] { return waitpid(pid_, &status, 0); }) != pid_) {
    throw_posix_error("waitpid(" + std::to_string(pid_) + ")");
  }
  exit_ = decode(status);
  return exit_;
}

}  // namespace stepscope::distributed
