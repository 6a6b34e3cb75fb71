// What the distributed commands (collectives, ddp) share around their own options and sweep:
// --help, parsing, checking every configuration for each --nproc value (or the job's world
// size), checking the output files, then running as one rank of a torchrun/srun job (its
// variables set: rank_job.h) or as the launcher of local workers; errors become exit statuses.
// A rank whose options or outputs are refused tells the other ranks of its job.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/rank_job.h"
#include "cli/rank_tables.h"
#include "core/device.h"
#include "distributed/communicator.h"
#include "distributed/launch_env.h"
#include "schema/input_values.h"
#include "schema/table.h"

namespace stepscope::cli {

struct DistributedCommand {
  std::string name;   // "collectives"
  std::string usage;  // printed by --help
  // Parses the arguments into the command's own options (throws CliError or ConfigError).
  std::function<void(const std::vector<std::string>& args)> parse;
  // After parse: the --nproc values and the files to check.
  std::function<std::vector<int64_t>()> nprocs;
  std::function<std::vector<std::pair<std::string, std::string>>()> outputs;  // {flag, path}; none for worker rows
  // Throws ConfigError for a configuration that cannot run with `ranks` ranks.
  std::function<void(int ranks)> check;
  // Whether the ranks run on GPUs (--device cuda): then each needs a GPU of its own.
  std::function<bool()> on_gpus;
  // How this rank joins its job: backend, --timeout, --quiet, --worker-rows, and the settings
  // every rank must share (the options that decide its collectives, canonical).
  std::function<RankJobSpec(const distributed::TorchrunEnv& env)> rank_job;
  // The rank's part once the job is up; writes while holding `output_lock`.
  std::function<int(const distributed::TorchrunEnv& env, distributed::Communicator& comm, std::timed_mutex& output_lock)> run_as_rank;
  std::function<int()> run_local;
};

int run_distributed_command(const DistributedCommand& command, const std::vector<std::string>& args,
                            std::ostream& out, std::ostream& err);

// The launcher's exit status from the rows gathered in `table`: kExitFailure when a row
// `failed` says so (status failed, wrong elements, a difference too large), else `status`.
int status_of_rows(int status, const schema::Table& table,
                   const std::function<bool(const schema::Table&, const std::vector<schema::Value>&)>& failed);

// What every distributed command's rank job holds: the backend, --timeout, --quiet,
// --worker-rows, and with --device cuda the GPU of LOCAL_RANK; the command adds its settings.
RankJobSpec rank_job_of(const std::string& command, const distributed::TorchrunEnv& env, CommBackend backend, int timeout_s,
                        const TableOutputs& outputs, const Device& device);

// What every rank of a job must share: each input of the experiment but the job's own
// (--nproc, --timeout), as canonical text (a flag "on" or "off"), from values made from the
// parsed spec so that 1MB and 1000000 agree.
distributed::JobSettings job_settings(const schema::InputValues& canonical);

}  // namespace stepscope::cli
