// The CLI's commands. Each returns the process exit status; errors are printed on `err`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace stepscope::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;

int run_bench_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_precision_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_attention_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_collectives_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_ddp_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_plan_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_check_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_import_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// Exit status 1 means a regression (the gate's), not a failure of the command (that is 2).
int run_compare_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// Dispatches argv[1] to a command.
int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err);

// Cancels the running benchmark; `signal` is the one that asked (from a signal handler: only
// atomics are set).
void request_cancel(int signal);

}  // namespace stepscope::cli
