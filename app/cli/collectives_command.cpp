// stepscope-cli collectives: nccl-tests' table over LibTorch's c10d (Gloo on CPUs, NCCL on GPUs),
// on N local workers it starts itself (--nproc) or as one rank of a job torchrun or srun started.
#include <chrono>
#include <iostream>

#include <ATen/ATen.h>

#include "core/config_error.h"
#include "cli/command_output.h"
#include "cli/rank_launch.h"
#include "cli/commands.h"
#include "cli/distributed_command.h"
#include "cli/experiment_command.h"
#include "cli/rank_tables.h"
#include "compat/torch_compat.h"
#include "core/device.h"
#include "distributed/launch_env.h"
#include "experiments/collectives/collective_case.h"
#include "experiments/collectives/collective_inputs.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/collectives/collective_sweep.h"
#include "registry/experiment_registry.h"

namespace stepscope::cli {

namespace {

struct AllreduceOptions {
  CollectiveSweepSpec spec;
  std::vector<int64_t> nprocs{2};
  int timeout_s = 60;
  TableOutputs outputs;
};

AllreduceOptions parse_options(const std::vector<std::string>& args) {
  const ExperimentArguments parsed = parse_experiment_arguments(*find_experiment("collectives"), args, false);
  AllreduceOptions o;
  try {
    o.spec = collective_spec(parsed.inputs);
  } catch (const ConfigError& e) {
    throw CliError(option_message(e, collective_inputs()));
  }
  o.nprocs = parsed.inputs.integers("nproc");
  o.timeout_s = static_cast<int>(parsed.inputs.integer("timeout"));
  o.outputs = parsed.outputs;
  return o;
}

// How this rank joins its job; every rank must run the same collectives.
RankJobSpec rank_job(const distributed::TorchrunEnv& env, const AllreduceOptions& o) {
  RankJobSpec job = rank_job_of("collectives", env, o.spec.base.backend, o.timeout_s, o.outputs, o.spec.base.device);
  job.settings = job_settings(collective_values(o.spec));
  return job;
}

// This process is one rank of a torchrun-style job, joined: run the sweep.
int run_as_rank(const distributed::TorchrunEnv& env, distributed::Communicator& comm, std::timed_mutex& output_lock,
                const AllreduceOptions& o, std::ostream& out, std::ostream& err) {
  AllreduceOptions local = o;
  if (o.spec.base.device.is_cuda()) local.spec.base.device = Device{DeviceKind::cuda, env.local_rank};
  auto configs = expand(local.spec, env.world_size);
  for (auto& c : configs) c.ranks_on_host = env.local_world_size;
  const auto& schema = collective_schema();
  StderrProgress progress(err);
  const bool lead = env.rank == 0;
  ProgressSink* shown = lead && !o.outputs.quiet ? &progress : nullptr;
  RankTableWriter writer("collectives", {schema.table({})}, o.outputs, lead, out, output_lock);
  bool failed = false;
  // No cancel flag: a signalled rank leaves at once through its supervisor (rank_job.h).
  run_collective_sweep(configs, comm, shown, nullptr,
                       [&](const CollectiveResult& row) {
                         failed = failed || row.status == RunStatus::failed || row.wrong > 0;
                         writer.add(0, schema.values(row));
                         writer.flush();
                       });
  return failed ? kExitFailure : kExitOk;
}

bool row_failed(const schema::Table& table, const std::vector<schema::Value>& row) {
  const auto status = static_cast<size_t>(table.column_index("status"));
  const auto wrong = static_cast<size_t>(table.column_index("wrong"));
  return schema::text_of(row[status]) == "failed" || schema::number_of(row[wrong]).value_or(0) > 0;
}

}  // namespace

int run_collectives_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  AllreduceOptions o;
  DistributedCommand command;
  command.name = "collectives";
  command.usage = experiment_usage(*find_experiment("collectives"));
  command.parse = [&](const std::vector<std::string>& a) { o = parse_options(a); };
  command.nprocs = [&] { return o.nprocs; };
  command.outputs = [&] { return output_files(o.outputs); };
  command.on_gpus = [&] { return o.spec.base.device.is_cuda(); };
  command.check = [&](int ranks) {
    for (const auto& c : expand(o.spec, ranks)) check_runnable(c);
  };
  command.rank_job = [&](const distributed::TorchrunEnv& env) { return rank_job(env, o); };
  command.run_as_rank = [&](const distributed::TorchrunEnv& env, distributed::Communicator& comm, std::timed_mutex& lock) {
    return run_as_rank(env, comm, lock, o, out, err);
  };
  command.run_local = [&] {
    std::vector<schema::Table> tables{collective_schema().table({})};
    const int status = run_local_rank_tables("collectives", args, o.nprocs, o.timeout_s, o.outputs, tables, out, err);
    return status_of_rows(status, tables[0], row_failed);
  };
  return run_distributed_command(command, args, out, err);
}

}  // namespace stepscope::cli
