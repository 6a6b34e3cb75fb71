// stepscope-cli ddp: the DDP experiments of issue 11 (naive, flat, overlap and bucketed gradient
// synchronisation) over LibTorch's c10d with Gloo on CPUs, on N local workers it starts itself
// (--nproc) or as one rank of a job torchrun or srun started.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "core/config_error.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/distributed_command.h"
#include "cli/experiment_command.h"
#include "cli/rank_launch.h"
#include "cli/rank_tables.h"
#include "compat/torch_compat.h"
#include "core/device.h"
#include "distributed/launch_env.h"
#include "distributed/worker_launcher.h"
#include "experiments/ddp/ddp_inputs.h"
#include "experiments/ddp/ddp_memory_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_sweep.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "registry/experiment_registry.h"
#include "io/output_file.h"
#include "io/timeline_trace_export.h"

namespace stepscope::cli {

namespace {

struct DdpOptions {
  DdpSweepSpec spec;
  std::vector<int64_t> nprocs{2};
  int timeout_s = 60;
  TableOutputs outputs;
  std::string trace;
};

DdpOptions parse_options(const std::vector<std::string>& args) {
  const ExperimentArguments parsed = parse_experiment_arguments(*find_experiment("ddp"), args, false);
  DdpOptions o;
  try {
    o.spec = ddp_spec(parsed.inputs);
  } catch (const ConfigError& e) {
    throw CliError(option_message(e, ddp_inputs()));
  }
  o.nprocs = parsed.inputs.integers("nproc");
  o.timeout_s = static_cast<int>(parsed.inputs.integer("timeout"));
  o.outputs = parsed.outputs;
  if (o.spec.base.profile_memory) o.outputs.required_sides = {"ddp.memory"};
  o.trace = parsed.inputs.text("trace");
  return o;
}

enum DdpTable : size_t { kRows, kRankRows, kTimeline, kMemory };

std::vector<schema::Table> ddp_tables() {
  schema::Table ranks = ddp_schema().table({});
  ranks.schema = "ddp.ranks";
  return {ddp_schema().table({}), ranks, ddp_timeline_schema().table({}), ddp_memory_schema().table({})};
}

bool row_failed(const DdpResult& r) {
  const auto tolerance = check_tolerance(r.config);
  return r.status == RunStatus::failed || (tolerance && r.max_param_diff > *tolerance);
}

void write_trace(const std::string& path, const schema::Table& timeline) {
  if (path.empty()) return;
  std::vector<TimelineRow> rows;
  for (size_t i = 0; i < timeline.rows.size(); ++i) rows.push_back(schema::read_row(ddp_timeline_schema(), timeline, i));
  replace_file(path, [&](std::ostream& f) { write_timeline_trace(f, rows); });
}

// How this rank joins its job; every rank must train the same configurations.
RankJobSpec rank_job(const distributed::TorchrunEnv& env, const DdpOptions& o) {
  RankJobSpec job = rank_job_of("ddp", env, o.spec.base.backend, o.timeout_s, o.outputs, o.spec.base.device);
  job.settings = job_settings(ddp_values(o.spec));
  return job;
}

// This process is one rank of a torchrun-style job, joined: run the sweep.
int run_as_rank(const distributed::TorchrunEnv& env, distributed::Communicator& comm, std::timed_mutex& output_lock,
                const DdpOptions& o, std::ostream& out, std::ostream& err) {
  DdpSweepSpec spec = o.spec;
  if (spec.base.device.is_cuda()) spec.base.device = Device{DeviceKind::cuda, env.local_rank};
  auto configs = expand(spec, env.world_size);
  for (auto& c : configs) c.ranks_on_host = env.local_world_size;
  StderrProgress progress(err);
  const bool lead = env.rank == 0;
  ProgressSink* shown = lead && !o.outputs.quiet ? &progress : nullptr;
  auto tables = ddp_tables();
  RankTableWriter writer("ddp", tables, o.outputs, lead, out, output_lock);
  bool failed = false;
  // No cancel flag: a signalled rank leaves at once through its supervisor (rank_job.h).
  run_ddp_sweep(configs, comm, shown, nullptr, [&](const DdpRowSet& set) {
    failed = failed || row_failed(set.combined);
    // Side rows first: a launcher rewrites its files when the main row arrives.
    for (const auto& r : set.per_rank) {
      writer.add(kRankRows, ddp_schema().values(r));
      for (const auto& m : memory_rows(r)) writer.add(kMemory, ddp_memory_schema().values(m));
    }
    for (const auto& t : set.timelines) {
      for (const auto& row : timeline_rows(t)) {
        writer.add(kTimeline, ddp_timeline_schema().values(row));
        if (lead) tables[kTimeline].rows.push_back(ddp_timeline_schema().values(row));
      }
    }
    writer.add(kRows, ddp_schema().values(set.combined));
    writer.flush();
  });
  if (lead && !o.outputs.worker_rows) {
    std::lock_guard<std::timed_mutex> lock(output_lock);
    write_trace(o.trace, tables[kTimeline]);
  }
  return failed ? kExitFailure : kExitOk;
}

}  // namespace

int run_ddp_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  DdpOptions o;
  DistributedCommand command;
  command.name = "ddp";
  command.usage = experiment_usage(*find_experiment("ddp"));
  command.parse = [&](const std::vector<std::string>& a) { o = parse_options(a); };
  command.nprocs = [&] { return o.nprocs; };
  command.outputs = [&]() -> std::vector<std::pair<std::string, std::string>> {
    auto files = output_files(o.outputs);
    if (files.empty()) return files;  // a worker writes no files
    files.push_back({"--trace", o.trace});
    for (const auto& t : ddp_tables()) {
      if (t.schema == "ddp") continue;
      const std::string side = side_table_path(o.outputs, "ddp", t.schema);
      if (!side.empty()) files.push_back({t.schema == "ddp.memory" ? "--profile-memory" : "--csv", side});
    }
    return files;
  };
  command.on_gpus = [&] { return o.spec.base.device.is_cuda(); };
  command.check = [&](int ranks) {
    for (const auto& c : expand(o.spec, ranks)) check_runnable(c);
  };
  command.rank_job = [&](const distributed::TorchrunEnv& env) { return rank_job(env, o); };
  command.run_as_rank = [&](const distributed::TorchrunEnv& env, distributed::Communicator& comm, std::timed_mutex& lock) {
    return run_as_rank(env, comm, lock, o, out, err);
  };
  command.run_local = [&] {
    auto tables = ddp_tables();
    const auto worker_args = without_options(args, {"trace"}, {});
    const int status = run_local_rank_tables("ddp", worker_args, o.nprocs, o.timeout_s, o.outputs, tables, out, err);
    write_trace(o.trace, tables[kTimeline]);
    if (o.spec.base.profile_memory && !o.outputs.quiet) {
      err << "stepscope-cli ddp: the memory profile is in " << side_table_path(o.outputs, "ddp", "ddp.memory") << '\n';
    }
    // The table leaves out the device; every row of a run shares the base's.
    return status_of_rows(status, tables[kRows], [&](const schema::Table& table, const std::vector<schema::Value>& row) {
      DdpResult r = schema::read_row(ddp_schema(), schema::Table{table.schema, table.columns, {row}}, 0);
      r.config.device = o.spec.base.device;
      return row_failed(r);
    });
  };
  return run_distributed_command(command, args, out, err);
}

}  // namespace stepscope::cli
