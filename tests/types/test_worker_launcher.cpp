// The local worker launcher (--nproc) and the torchrun environment a worker reads. The workers
// are /bin/sh scripts, so no special binary is needed; every test checks that no process it
// started is left behind.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "distributed/launch_env.h"
#include "distributed/worker_launcher.h"
#include "types/launcher_test_support.h"
#include "core/config_error.h"
#include "core/size_limits.h"

namespace stepscope::distributed {
namespace {

using namespace launcher_testing;

TEST(WorkerLauncher, DeliversLinesWithRankAndTorchrunEnvironment) {
  auto spec = shell_spec(3, "echo \"$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR $MASTER_PORT "
                            "$STEPSCOPE_TEST_VALUE\"; echo second; printf 'no newline'");
  spec.extra_env["STEPSCOPE_TEST_VALUE"] = "hello world";
  Collected collected;
  const LaunchOutcome outcome = WorkerLauncher(spec).run(collect_into(collected));

  ASSERT_TRUE(outcome.ok()) << outcome.message;
  EXPECT_EQ(outcome.message, "3 workers exited with status 0");
  EXPECT_GT(outcome.master_port, 0);
  EXPECT_LE(outcome.master_port, 65535);
  ASSERT_EQ(outcome.workers.size(), 3u);
  for (int rank = 0; rank < 3; ++rank) {
    const std::string r = std::to_string(rank);
    const std::vector<std::string> expected = {
        r + " 3 " + r + " 3 127.0.0.1 " + std::to_string(outcome.master_port) + " hello world", "second",
        "no newline"};
    EXPECT_EQ(collected.out[rank], expected) << "rank " << rank;
    EXPECT_EQ(outcome.workers[static_cast<size_t>(rank)].rank, rank);
    EXPECT_TRUE(outcome.workers[static_cast<size_t>(rank)].status.success());
    EXPECT_FALSE(outcome.workers[static_cast<size_t>(rank)].stopped_by_launcher);
  }
  EXPECT_TRUE(collected.err.empty());
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, FailingWorkerEndsItsPeersAndIsNamedWithItsStderr) {
  const auto spec = shell_spec(2,
                               "if [ \"$RANK\" = 1 ]; then echo 'loading shard 7' >&2; echo 'cannot open shard 7' >&2; "
                               "exit 3; fi; exec sleep 30");
  Collected collected;
  const auto start = Clock::now();
  const LaunchOutcome outcome = WorkerLauncher(spec).run(collect_into(collected));

  EXPECT_LT(seconds_since(start), 5.0) << "the sleeping peer was not ended promptly";
  EXPECT_EQ(outcome.status, LaunchStatus::failed);
  EXPECT_EQ(outcome.failed_ranks, std::vector<int>{1});
  EXPECT_EQ(outcome.message,
            "rank 1 exited with status 3\nlast stderr of rank 1:\n  loading shard 7\n  cannot open shard 7");
  EXPECT_EQ(outcome.workers[1].status.exit_code, 3);
  EXPECT_FALSE(outcome.workers[1].stopped_by_launcher);
  EXPECT_TRUE(outcome.workers[0].stopped_by_launcher);
  EXPECT_EQ(outcome.workers[0].status.signal, SIGTERM);
  EXPECT_EQ(collected.err[1].size(), 2u);
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, WorkerKilledBySignalIsNamed) {
  const auto spec = shell_spec(2, "if [ \"$RANK\" = 1 ]; then echo 'about to crash' >&2; kill -9 $$; fi; exec sleep 30");
  const auto start = Clock::now();
  const LaunchOutcome outcome = WorkerLauncher(spec).run({});

  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(outcome.status, LaunchStatus::failed);
  EXPECT_EQ(outcome.message, "rank 1 was killed by signal 9 (Killed)\nlast stderr of rank 1:\n  about to crash");
  EXPECT_EQ(outcome.workers[1].status.signal, SIGKILL);
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, SilentWorkerIsTakenAsHung) {
  auto spec = shell_spec(2, "if [ \"$RANK\" = 0 ]; then echo done; exit 0; fi; exec sleep 30");
  spec.timeout = 1s;
  const auto start = Clock::now();
  const LaunchOutcome outcome = WorkerLauncher(spec).run({});
  const double elapsed = seconds_since(start);

  EXPECT_GE(elapsed, 1.0);
  EXPECT_LT(elapsed, 6.0);
  EXPECT_EQ(outcome.status, LaunchStatus::failed);
  EXPECT_EQ(outcome.failed_ranks, std::vector<int>{1});
  EXPECT_EQ(outcome.message, "rank 1 sent nothing for 1 s (hung?)");
  EXPECT_TRUE(outcome.workers[0].status.success());
  EXPECT_TRUE(outcome.workers[1].stopped_by_launcher);
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, OutputKeepsAWorkerFromBeingTakenAsHung) {
  auto spec = shell_spec(1, "for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.25; done");
  spec.timeout = 1s;  // longer than each pause, shorter than the run
  Collected collected;
  const LaunchOutcome outcome = WorkerLauncher(spec).run(collect_into(collected));
  EXPECT_TRUE(outcome.ok()) << outcome.message;
  EXPECT_EQ(collected.out[0].size(), 6u);
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, CancelEndsEveryWorker) {
  const auto spec = shell_spec(2, "echo ready; exec sleep 30");
  CancelFlag cancel;
  WorkerCallbacks callbacks;
  callbacks.on_line = [&cancel](int, const std::string&) { cancel.cancel(); };
  const auto start = Clock::now();
  const LaunchOutcome outcome = WorkerLauncher(spec).run(callbacks, &cancel);

  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(outcome.status, LaunchStatus::cancelled);
  EXPECT_EQ(outcome.message, "cancelled");
  EXPECT_TRUE(outcome.failed_ranks.empty());
  for (const auto& worker : outcome.workers) EXPECT_TRUE(worker.stopped_by_launcher);
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, WorkerIgnoringSigtermIsKilledAfterTheGrace) {
  auto spec = shell_spec(1, "trap '' TERM; echo ready; sleep 30");  // sleep inherits the ignored TERM
  spec.term_grace = 300ms;
  CancelFlag cancel;
  WorkerCallbacks callbacks;
  callbacks.on_line = [&cancel](int, const std::string&) { cancel.cancel(); };
  const auto start = Clock::now();
  const LaunchOutcome outcome = WorkerLauncher(spec).run(callbacks, &cancel);
  const double elapsed = seconds_since(start);

  EXPECT_GE(elapsed, 0.3);
  EXPECT_LT(elapsed, 5.0);
  EXPECT_EQ(outcome.status, LaunchStatus::cancelled);
  EXPECT_EQ(outcome.workers[0].status.signal, SIGKILL);
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, KeepsTheLastStderrLines) {
  auto spec = shell_spec(1, "for i in 1 2 3 4 5; do echo e$i >&2; done; exit 2");
  spec.stderr_tail_lines = 3;
  Collected collected;
  const LaunchOutcome outcome = WorkerLauncher(spec).run(collect_into(collected));
  EXPECT_EQ(outcome.message, "rank 0 exited with status 2\nlast stderr of rank 0:\n  e3\n  e4\n  e5");
  EXPECT_EQ(outcome.workers[0].stderr_tail, (std::vector<std::string>{"e3", "e4", "e5"}));
  EXPECT_EQ(collected.err[0].size(), 5u);  // the callback sees every line
  expect_nothing_left(outcome);
}

TEST(WorkerLauncher, ThrowingCallbackEndsTheWorkers) {
  const auto spec = shell_spec(2, "echo ready; exec sleep 30");
  WorkerCallbacks callbacks;
  callbacks.on_line = [](int, const std::string&) { throw std::runtime_error("bad row"); };
  EXPECT_THROW(WorkerLauncher(spec).run(callbacks), std::runtime_error);
  EXPECT_TRUE(children_of_this_process().empty());
}

TEST(WorkerLauncher, MissingProgramThrowsNamingExecve) {
  auto spec = shell_spec(2, "");
  spec.program = "/nonexistent/stepscope-worker";
  try {
    WorkerLauncher(spec).run({});
    FAIL() << "no exception";
  } catch (const std::system_error& error) {
    EXPECT_NE(std::string(error.what()).find("execve(/nonexistent/stepscope-worker)"), std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(children_of_this_process().empty());
}

TEST(WorkerLauncher, WorkersDieWithTheLauncher) {
  int pid_pipe[2];
  ASSERT_EQ(pipe(pid_pipe), 0);
  const pid_t launcher = fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {  // a launcher that dies abruptly once its worker runs
    close(pid_pipe[0]);
    try {
      WorkerCallbacks callbacks;
      callbacks.on_line = [&](int, const std::string& line) {
        const ssize_t n = write(pid_pipe[1], line.data(), line.size());
        _exit(n > 0 ? 0 : 1);
      };
      WorkerLauncher(shell_spec(1, "echo $$; exec sleep 30")).run(callbacks);
    } catch (...) {
    }
    _exit(2);
  }
  close(pid_pipe[1]);
  char buffer[32] = {};
  const ssize_t n = read(pid_pipe[0], buffer, sizeof buffer - 1);
  close(pid_pipe[0]);
  int status = 0;
  ASSERT_EQ(waitpid(launcher, &status, 0), launcher);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_GT(n, 0);
  const long worker = std::strtol(buffer, nullptr, 10);
  ASSERT_GT(worker, 0);
  const auto deadline = Clock::now() + 5s;
  auto alive = [worker] {
    const auto stat = proc_stat(worker);
    return stat && stat->state != 'Z';
  };
  while (alive() && Clock::now() < deadline) usleep(10'000);
  EXPECT_FALSE(alive()) << "the worker outlived its launcher";
  if (alive()) kill(static_cast<pid_t>(worker), SIGKILL);
}

TEST(WorkerLauncher, ChecksTheSpec) {
  const auto field_of = [](WorkerLaunchSpec spec) {
    try {
      WorkerLauncher launcher(std::move(spec));
    } catch (const ConfigError& error) {
      return error.field();
    }
    return std::string();
  };
  auto spec = shell_spec(0, "");
  EXPECT_EQ(field_of(spec), "nproc");
  spec.nproc = kMaxLocalWorkers + 1;
  EXPECT_EQ(field_of(spec), "nproc");
  spec.nproc = 2;
  spec.timeout = 0ms;
  EXPECT_EQ(field_of(spec), "timeout");
  spec.timeout = 1s;
  spec.extra_env["A=B"] = "c";
  EXPECT_EQ(field_of(spec), "extra_env");
}

TEST(WorkerLauncher, WorkerEnvironmentOverridesInheritedTorchrunVariables) {
  ASSERT_EQ(setenv("RANK", "99", 1), 0);
  auto spec = shell_spec(4, "");
  spec.extra_env["RANK"] = "98";
  spec.extra_env["STEPSCOPE_EXTRA"] = "1";
  const auto env = WorkerLauncher(spec).worker_environment(2, 29500);
  ASSERT_EQ(unsetenv("RANK"), 0);
  std::map<std::string, int> counts;
  for (const auto& entry : env) ++counts[entry];
  EXPECT_EQ(counts["RANK=2"], 1);
  EXPECT_EQ(counts["RANK=99"] + counts["RANK=98"], 0);
  EXPECT_EQ(counts["STEPSCOPE_EXTRA=1"], 1);
  if (const char* path = std::getenv("PATH")) {
    EXPECT_EQ(counts[std::string("PATH=") + path], 1);
  }

  // What the launcher sets is what a worker reads back.
  std::map<std::string, std::string> variables;
  for (const auto& entry : env) variables[entry.substr(0, entry.find('='))] = entry.substr(entry.find('=') + 1);
  const auto read = TorchrunEnv::from_lookup([&](const char* name) -> const char* {
    const auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  });
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->master_addr, "127.0.0.1");
  EXPECT_EQ(read->master_port, 29500);
  EXPECT_EQ(read->rank, 2);
  EXPECT_EQ(read->world_size, 4);
  EXPECT_EQ(read->local_rank, 2);
  EXPECT_EQ(read->local_world_size, 4);
}

TEST(WorkerLauncher, DefaultProgramIsTheRunningExecutable) {
  char self[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
  const auto argv = WorkerLauncher(WorkerLaunchSpec{}).worker_argv();
  EXPECT_EQ(argv, std::vector<std::string>{self});
}

}  // namespace
}  // namespace stepscope::distributed
