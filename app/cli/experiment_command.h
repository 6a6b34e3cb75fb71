// The command line's side of an experiment descriptor, written once for every experiment:
// the options it parses (the experiment's inputs, then the outputs every command has), its
// usage, the message of a mistake, and running a table experiment to its files, console
// table and exit status.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "cli/cli_options.h"
#include "cli/rank_tables.h"
#include "experiments/experiment_descriptor.h"

namespace stepscope::cli {

// The experiment's inputs, then --csv, --json, --quiet and --threads (and the hidden
// --worker-rows of a job's workers).
const schema::InputSchema& command_inputs(const ExperimentDescriptor& descriptor);

struct ExperimentArguments {
  schema::InputValues inputs;  // the experiment's own: its spec, the run record, a worker's argv
  TableOutputs outputs;
  int cpu_threads = 0;  // --threads, applied to this process by the parse
  bool help = false;
};

// Throws CliError with the message to print, the option named. Sets this process's CPU threads
// (--threads; all cores but one by default) unless --help. Checks the inputs together
// (the descriptor's check, which may look at this machine) when `check` and no --help.
ExperimentArguments parse_experiment_arguments(const ExperimentDescriptor& descriptor,
                                               const std::vector<std::string>& args, bool check = true);
std::string experiment_usage(const ExperimentDescriptor& descriptor);
// A ConfigError as a command line says it: "--batch: <message>" where it names an input of
// `inputs` (d_model is --d-model), the message alone otherwise.
std::string option_message(const ConfigError& error, const schema::InputSchema& inputs);

// stepscope-cli <command> for a descriptor that runs in process: parse, check, run with
// progress and Ctrl-C, the table on stdout or --csv (rewritten as rows arrive), the run record
// with its inputs in --json, the console table and reading on stderr.
// Exit status: 0 ok, 1 failed (or out of memory for a one-case experiment), 2 bad options,
// 130 interrupted.
int run_experiment_command(const ExperimentDescriptor& descriptor, const std::vector<std::string>& args,
                           std::ostream& out, std::ostream& err);

}  // namespace stepscope::cli
