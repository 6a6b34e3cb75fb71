// Runs of separate processes see each other through the registry: a run begun while another
// process's runs is marked with its label, one begun and ended during a run is counted, a
// process that died leaves nothing behind, and a worker of a run (its child) is part of it.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "experiments/run_registry.h"

namespace stepscope {
namespace {

std::string fresh_folder() {
  char folder[] = "/tmp/stepscope_registry_XXXXXX";
  EXPECT_NE(::mkdtemp(folder), nullptr);
  return folder;
}

// Runs `body` in a grandchild process (its parent holds no run) and waits for it; the exit
// status is what body returns.
template <class Body>
int in_other_process(Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) _exit(body());
    int status = 0;
    ::waitpid(grandchild, &status, 0);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 99);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 98;
}

TEST(RunRegistry, ARunAloneSeesNothing) {
  const std::string folder = fresh_folder();
  RegisteredRun run("alone", folder);
  ASSERT_TRUE(run.registered());
  EXPECT_FALSE(run.overlap().any());
  EXPECT_EQ(describe(run.overlap()), "");
}

TEST(RunRegistry, AnotherProcesssRunIsSeenAndSeesThisOne) {
  const std::string folder = fresh_folder();
  RegisteredRun mine("stepscope: mine", folder);
  ASSERT_TRUE(mine.registered());
  int to_child[2], to_parent[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(to_parent), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    const pid_t grandchild = ::fork();  // not a child of the run's process: a process of its own
    if (grandchild == 0) {
      RegisteredRun theirs("stepscope-cli bench", folder);
      const RunOverlap seen = theirs.overlap();
      const bool sees_mine = seen.seen.size() == 1 && seen.seen[0].label == "stepscope: mine";
      char go = sees_mine ? 'y' : 'n';
      if (::write(to_parent[1], &go, 1) != 1 || ::read(to_child[0], &go, 1) != 1) _exit(3);
      _exit(sees_mine ? 0 : 1);
    }
    int status = 0;
    ::waitpid(grandchild, &status, 0);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 99);
  }
  char answer = 0;
  ASSERT_EQ(::read(to_parent[0], &answer, 1), 1);
  EXPECT_EQ(answer, 'y');  // the other process saw this one's run
  const RunOverlap overlap = mine.overlap();
  ASSERT_EQ(overlap.seen.size(), 1u);
  EXPECT_EQ(overlap.seen[0].label, "stepscope-cli bench");
  EXPECT_EQ(describe(overlap).rfind("measured while another Stepscope run ran: stepscope-cli bench (pid ", 0), 0u)
      << describe(overlap);
  ASSERT_EQ(::write(to_child[1], "x", 1), 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // Once it ended, it is still counted, though its file is gone.
  EXPECT_TRUE(mine.overlap().any());
}

TEST(RunRegistry, ARunBegunAndEndedDuringOneIsCounted) {
  const std::string folder = fresh_folder();
  RegisteredRun mine("mine", folder);
  EXPECT_EQ(in_other_process([&] {
              RegisteredRun brief("brief", folder);
              return brief.registered() ? 0 : 1;
            }),
            0);
  const RunOverlap overlap = mine.overlap();
  EXPECT_TRUE(overlap.seen.empty());
  EXPECT_EQ(overlap.unseen, 1);
  EXPECT_EQ(describe(overlap), "measured while another Stepscope run ran: 1 began and ended during it");
}

TEST(RunRegistry, ADeadProcesssRunIsNotSeenAfterwards) {
  const std::string folder = fresh_folder();
  EXPECT_EQ(in_other_process([&] {
              auto* leaked = new RegisteredRun("crashed", folder);  // never unregistered: the process dies
              return leaked->registered() ? 0 : 1;
            }),
            0);
  RegisteredRun after("after", folder);
  EXPECT_FALSE(after.overlap().any());
}

TEST(RunRegistry, AWorkerOfARunIsPartOfIt) {
  const std::string folder = fresh_folder();
  RegisteredRun mine("mine", folder);
  const pid_t child = ::fork();
  if (child == 0) {
    RegisteredRun worker("worker", folder);  // its parent holds a run
    _exit(worker.registered() ? 1 : 0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(mine.overlap().any());
}

}  // namespace
}  // namespace stepscope
