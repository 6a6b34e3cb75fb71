#include <atomic>
#include <csignal>
#include <iostream>

#include <unistd.h>

#include "cli/commands.h"

namespace {

std::atomic<int> g_interrupts{0};

// The first Ctrl-C or SIGTERM stops after the step in progress, keeping every file; a second
// one ends the process at once (building a large model can take minutes, and every finished
// row is already on disk).
void on_interrupt(int signal) {
  if (g_interrupts.fetch_add(1) == 0) {
    stepscope::cli::request_cancel(signal);
    return;
  }
  static const char message[] = "\nstepscope-cli: interrupted again; stopping now (finished rows are in the files)\n";
  [[maybe_unused]] const auto written = write(STDERR_FILENO, message, sizeof message - 1);
  _exit(stepscope::cli::kExitInterrupted);
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  // A reader that stops early (`| head -1`) must not kill the run before its files are written:
  // a write to the closed pipe fails instead, and the run goes on.
  std::signal(SIGPIPE, SIG_IGN);
  return stepscope::cli::run_cli(argc, argv, std::cout, std::cerr);
}
