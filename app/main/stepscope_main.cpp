// The application's entry point. Until the desktop GUI lands it runs the embedded CPU
// engine's default benchmark (tiny model; forward, forward-backward and train steps) and
// prints the table. Options of `stepscope-cli bench` override those defaults.
#include <algorithm>
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

bool given(const std::vector<std::string>& args, std::initializer_list<const char*> names) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& arg) {
    const std::string name = arg.substr(0, arg.find('='));
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, [](int) { stepscope::cli::request_cancel(); });
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!given(args, {"--model", "--d-model", "--d-ff", "--layers", "--heads", "--vocab"})) {
    args.insert(args.end(), {"--model", "tiny"});
  }
  if (!given(args, {"--mode"})) args.insert(args.end(), {"--mode", "forward,forward-backward,train"});
  std::cerr << "Stepscope: the embedded engine's benchmark (stepscope-cli bench";
  for (const auto& arg : args) std::cerr << ' ' << arg;
  std::cerr << ")\n";
  return stepscope::cli::run_bench_command(args, std::cout, std::cerr);
}
