// The application's entry point. Until the desktop GUI lands it runs the embedded CPU
// engine's default benchmark (tiny model, full training step) and prints the table;
// any stepscope-cli bench options given are passed through.
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  std::signal(SIGINT, [](int) { stepscope::cli::request_cancel(); });
  std::vector<std::string> args = {"--model", "tiny", "--device", "cpu", "--mode", "forward,forward-backward,train"};
  if (argc > 1) args.assign(argv + 1, argv + argc);
  std::cerr << "Stepscope: the embedded CPU engine's default benchmark (stepscope-cli bench "
            << (argc > 1 ? "<your options>" : "--model tiny --mode forward,forward-backward,train") << ")\n";
  return stepscope::cli::run_bench_command(args, std::cout, std::cerr);
}
