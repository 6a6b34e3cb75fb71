// Runs of every Stepscope process on this machine (the app's windows, stepscope-cli), so that a
// run measured beside another is marked rather than silently slower. Each run is a file in one
// folder, held under an exclusive flock while the run lasts (a crashed process's lock goes with
// it); a sequence file counts the runs begun, so that one begun and ended during a run is
// counted even though its file is gone. Inside one app the run gate keeps runs apart; this is
// for the processes the gate cannot see.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope {

// Another process's run, as its file says.
struct OtherRun {
  int64_t pid = 0;
  std::string label;  // "stepscope-cli bench --model tiny ...", "stepscope: attention naive ..."
};

// What else ran during a run.
struct RunOverlap {
  std::vector<OtherRun> seen;  // found running when it began or when it was asked
  int64_t unseen = 0;          // begun and ended in between, their files gone
  bool any() const { return !seen.empty() || unseen > 0; }
};

// "measured while other Stepscope runs ran: stepscope-cli bench (pid 42); 1 more began and
// ended during it"; empty when nothing did.
std::string describe(const RunOverlap& overlap);

// $STEPSCOPE_RUN_REGISTRY when set (tests), else $XDG_RUNTIME_DIR/stepscope-runs, else
// /tmp/stepscope-runs-<uid>.
std::string default_run_registry_folder();

// This process's run, registered for the object's lifetime. Not registered (and seeing
// nothing) when it is part of another's run: a worker whose parent process holds a run, or a
// rank other than 0 of a job (RANK set). A folder that cannot be used leaves it unregistered:
// the run goes on, unmarked.
class RegisteredRun {
 public:
  explicit RegisteredRun(const std::string& label, const std::string& folder = default_run_registry_folder());
  ~RegisteredRun();
  RegisteredRun(const RegisteredRun&) = delete;
  RegisteredRun& operator=(const RegisteredRun&) = delete;

  bool registered() const { return fd_ >= 0; }
  // Other processes' runs from its start until now.
  RunOverlap overlap() const;

 private:
  std::string folder_;
  std::string path_;
  int fd_ = -1;           // the run's file, locked
  int64_t sequence_ = 0;  // its number among the runs begun
  std::vector<OtherRun> seen_at_start_;
};

}  // namespace stepscope
