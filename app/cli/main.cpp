#include <csignal>
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  std::signal(SIGINT, [](int) { stepscope::cli::request_cancel(); });
  std::signal(SIGTERM, [](int) { stepscope::cli::request_cancel(); });
  return stepscope::cli::run_cli(argc, argv, std::cout, std::cerr);
}
