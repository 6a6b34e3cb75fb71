// What every command's output shares: files rewritten whole after each result through
// replace_file (an interrupted run keeps what was measured), progress on stderr, and the
// environment a run record names.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/progress.h"
#include "io/output_file.h"
#include "io/run_environment.h"

namespace stepscope::cli {

// Before anything runs: every output (option, path; empty paths skipped) can be written
// (output_file.h's rules), and no two name the same file. Throws CliError naming the option.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);
// As above, and no output names one of the command's input files (option, path; empty paths
// skipped), whatever the spelling (./x, a/../x, a symbolic or a hard link): the output would
// replace the input before or while it is read. Throws CliError naming both options.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                   const std::vector<std::pair<std::string, std::string>>& inputs);
// This build, this LibTorch, "stepscope-cli <command> <args...>", now.
RunEnvironment command_environment(const std::string& command, const std::vector<std::string>& args);

// This process's run among every Stepscope process's (experiments/run_registry.h), for as long
// as a command that measures runs: others see it, and it sees them.
class CommandRun {
 public:
  explicit CommandRun(const std::string& label);
  ~CommandRun();
  CommandRun(const CommandRun&) = delete;
  CommandRun& operator=(const CommandRun&) = delete;
};
// What other Stepscope runs ran during the command's so far, in words ("" when none, or when no
// CommandRun is held): kept in the run record and said on stderr.
std::string concurrent_runs();

// Set by SIGINT/SIGTERM (request_cancel); the running command stops after the step in progress.
CancelFlag& interrupt_flag();
// The first SIGINT or SIGTERM the process received; 0 while none. A rank of a job leaves at
// once on it (rank_job.h): its peers cannot wait for it to finish a step.
int interrupt_signal();

// One line per phase in logs; a line rewritten in place on a terminal.
class StderrProgress final : public ProgressSink {
 public:
  explicit StderrProgress(std::ostream& err);
  void on_progress(const Progress& p) override;

 private:
  std::ostream& err_;
  bool interactive_;
};

}  // namespace stepscope::cli
