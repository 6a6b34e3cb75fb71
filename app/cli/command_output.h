// What every command's output shares: files rewritten whole after each result through
// replace_file (an interrupted run keeps what was measured), progress on stderr, and the
// environment a run record names.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "experiments/progress.h"
#include "io/file_replace.h"
#include "io/run_environment.h"

namespace stepscope::cli {

// Throws CliError naming `option` when `path` cannot be written.
void require_writable(const std::string& option, const std::string& path);
// This build, this LibTorch, "stepscope-cli <command> <args...>", now.
RunEnvironment command_environment(const std::string& command, const std::vector<std::string>& args);

// Set by SIGINT/SIGTERM (request_cancel); the running command stops after the step in progress.
CancelFlag& interrupt_flag();

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
