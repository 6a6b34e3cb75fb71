#include "cli/command_output.h"

#include <atomic>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "compat/torch_compat.h"
#include "experiments/run_registry.h"
#include "io/output_file.h"

namespace stepscope::cli {

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

// The command's registration, while a CommandRun holds it.
std::unique_ptr<RegisteredRun>& command_registration() {
  static std::unique_ptr<RegisteredRun> run;
  return run;
}

}  // namespace

CommandRun::CommandRun(const std::string& label) { command_registration() = std::make_unique<RegisteredRun>(label); }

CommandRun::~CommandRun() { command_registration().reset(); }

std::string concurrent_runs() {
  const auto& run = command_registration();
  return run ? describe(run->overlap()) : std::string();
}

CancelFlag& interrupt_flag() {
  static CancelFlag flag;
  return flag;
}

namespace {
std::atomic<int> g_interrupt_signal{0};
}

void request_cancel(int signal) {
  int none = 0;
  g_interrupt_signal.compare_exchange_strong(none, signal);
  interrupt_flag().cancel();
}

int interrupt_signal() { return g_interrupt_signal.load(); }

void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (const auto& [option, path] : outputs) {
    if (path.empty()) continue;
    try {
      check_output_path(path);
    } catch (const FileWriteError& e) {
      throw CliError(option + ": " + e.what());
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [a, path_a] = outputs[i];
      const auto& [b, path_b] = outputs[j];
      if (!path_a.empty() && !path_b.empty() && same_output(path_a, path_b)) {
        throw CliError(a + " and " + b + " name the same file (" + path_a + "): one would overwrite the other");
      }
    }
  }
}

void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                   const std::vector<std::pair<std::string, std::string>>& inputs) {
  // First: that an output would destroy an input says more than that the input is read-only.
  for (const auto& [output, output_path] : outputs) {
    for (const auto& [input, input_path] : inputs) {
      // "-" as an output is standard output, never a file an input could name.
      if (output_path.empty() || input_path.empty() || output_path == "-" || input_path == "-") continue;
      if (same_output(output_path, input_path)) {
        throw CliError(output + " and " + input + " name the same file (" + output_path + " is " + input_path +
                       "): the output would destroy the input");
      }
    }
  }
  check_outputs(outputs);
}

RunEnvironment command_environment(const std::string& command, const std::vector<std::string>& args) {
  RunEnvironment environment{STEPSCOPE_VERSION, compat::libtorch_version(), "stepscope-cli " + command, utc_now()};
  for (const auto& arg : args) environment.command_line += " " + arg;
  return environment;
}

StderrProgress::StderrProgress(std::ostream& err) : err_(err), interactive_(isatty(STDERR_FILENO) != 0) {}

void StderrProgress::on_progress(const Progress& p) {
  const std::string head = "[" + std::to_string(p.config_index + 1) + "/" + std::to_string(p.config_count) + "] " +
                           p.config_label + ": " + to_string(p.phase);
  if (p.phase == RunPhase::done) {
    if (interactive_) err_ << "\r\033[K";
    return;
  }
  const std::string counter =
      p.steps_in_phase > 0 ? " " + std::to_string(p.step) + "/" + std::to_string(p.steps_in_phase) : "";
  if (interactive_) {
    err_ << "\r\033[K" << head << counter << std::flush;
  } else if (p.step == 0) {  // a line per phase keeps logs short
    err_ << head << counter << '\n' << std::flush;
  }
}

}  // namespace stepscope::cli
