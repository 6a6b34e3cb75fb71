// stepscope-cli allreduce: nccl-tests' table over LibTorch's c10d (Gloo on CPUs, NCCL on GPUs),
// on N local workers it starts itself (--nproc) or as one rank of a job torchrun or srun started.
#include <chrono>
#include <iostream>

#include <ATen/ATen.h>

#include "cli/command_output.h"
#include "cli/rank_launch.h"
#include "cli/commands.h"
#include "cli/distributed_command.h"
#include "cli/option_reader.h"
#include "cli/rank_tables.h"
#include "compat/torch_compat.h"
#include "dist/launch_env.h"
#include "experiments/collectives/collective_case.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/collectives/collective_sweep.h"

namespace stepscope::cli {

namespace {

std::string allreduce_usage() {
  return "usage: stepscope-cli allreduce [options]\n"
         "\n"
         "Times collectives over LibTorch's c10d as nccl-tests does: per op, element type and size, the mean\n"
         "time of the slowest rank, algbw = size / time, busbw = algbw x 2(n-1)/n (all-reduce), (n-1)/n\n"
         "(reduce-scatter, all-gather) or 1 (broadcast), and #wrong: elements that differ from the expected\n"
         "result. Started by torchrun or srun (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK,\n"
         "LOCAL_WORLD_SIZE set), it is one rank of that job; otherwise it starts --nproc local workers.\n"
         "\n"
         "  --backend B            gloo (CPU tensors) or nccl (GPUs) (default gloo, nccl with --device cuda)\n"
         "  --nproc N[,N...]       local workers, one run per value (default 2)\n"
         "  --op O[,O...]          allreduce, reducescatter, allgather, broadcast (default allreduce)\n"
         "  --sizes S[,S...]       bytes, or with KB, MB, GB (10^3) or KiB, MiB, GiB (2^10) (default 1MB,10MB,100MB,1GB)\n"
         "  --dtype T[,T...]       fp32, bf16 or fp16 (default fp32)\n"
         "  --warmup N             warm-up iterations (default 5)\n"
         "  --iters N              measured collectives, timed together, the mean reported (default 20)\n"
         "  --device D             cpu or cuda (each rank on GPU LOCAL_RANK) (default cpu)\n"
         "  --timeout S            seconds the ranks may take to meet, and each collective (default 60)\n"
         "  --csv F                write the table to F, rewritten after every row (default: stdout)\n"
         "  --json F               also write the run record\n"
         "  --quiet                no progress and no table on stderr\n"
         "\n"
         "A rank that gets SIGINT or SIGTERM tells the others and ends at once, by that signal; the rows\n"
         "measured before it stay. Ranks started with different options end before their first collective.\n"
         "\n"
         "Exit status: 0 ok, 1 a row or a rank failed, 2 bad options (or ranks started with different ones),\n"
         "3 this rank ended because another rank failed or was interrupted, 130 interrupted.\n";
}

struct AllreduceOptions {
  CollectiveSweepSpec spec;
  std::vector<int64_t> nprocs{2};
  int timeout_s = 60;
  TableOutputs outputs;
};

const std::vector<std::string> kValued{"backend", "nproc", "op", "sizes", "dtype", "warmup", "iters", "device",
                                       "timeout", "csv", "json"};

AllreduceOptions parse_options(const std::vector<std::string>& args) {
  const OptionReader options("allreduce", args, {kValued.begin(), kValued.end()},
                             {"quiet", "help", "worker-rows"});
  AllreduceOptions o;
  CollectiveConfig& base = o.spec.base;
  base.device = options.get("device", "cpu");
  if (base.device != "cpu" && base.device != "cuda") throw CliError("--device: use cpu or cuda (got '" + base.device + "')");
  base.backend = parse_with("backend", options.get("backend", base.device == "cuda" ? "nccl" : "gloo"), parse_comm_backend);
  if (options.has("nproc")) o.nprocs = parse_integer_list("nproc", options.get("nproc"));
  o.spec.ops.clear();
  for (const auto& t : split_list("op", options.get("op", "allreduce"))) o.spec.ops.push_back(parse_with("op", t, parse_collective_op));
  if (options.has("sizes")) {
    o.spec.sizes_bytes.clear();
    for (const auto& t : split_list("sizes", options.get("sizes"))) o.spec.sizes_bytes.push_back(parse_size_bytes("sizes", t));
  }
  o.spec.dtypes.clear();
  for (const auto& t : split_list("dtype", options.get("dtype", "fp32"))) o.spec.dtypes.push_back(parse_with("dtype", t, parse_precision));
  base.warmup_iters = static_cast<int>(parse_integer("warmup", options.get("warmup", "5"), 0));
  base.iters = static_cast<int>(parse_integer("iters", options.get("iters", "20"), 1));
  o.timeout_s = static_cast<int>(parse_integer("timeout", options.get("timeout", "60"), 1));
  o.outputs = read_table_outputs(options);
  return o;
}

// How this rank joins its job; every rank must run the same collectives.
RankJobSpec rank_job(const dist::TorchrunEnv& env, const AllreduceOptions& o) {
  RankJobSpec job = rank_job_of("allreduce", env, o.spec.base.backend, o.timeout_s, o.outputs, o.spec.base.device);
  const auto& s = o.spec;
  job.settings.entries = {
      {"--op", joined(s.ops, [](CollectiveOp op) { return to_string(op); })},
      {"--sizes", joined(s.sizes_bytes, [](int64_t b) { return std::to_string(b); })},
      {"--dtype", joined(s.dtypes, [](Precision p) { return to_string(p); })},
      {"--warmup", std::to_string(s.base.warmup_iters)},
      {"--iters", std::to_string(s.base.iters)},
      {"--device", s.base.device},
      {"--backend", to_string(s.base.backend)},
  };
  return job;
}

// This process is one rank of a torchrun-style job, joined: run the sweep.
int run_as_rank(const dist::TorchrunEnv& env, dist::Communicator& comm, std::timed_mutex& output_lock,
                const AllreduceOptions& o, std::ostream& out, std::ostream& err) {
  AllreduceOptions local = o;
  if (o.spec.base.device == "cuda") local.spec.base.device = "cuda:" + std::to_string(env.local_rank);
  auto configs = expand(local.spec, env.world_size);
  for (auto& c : configs) c.ranks_on_host = env.local_world_size;
  const auto& schema = collective_schema();
  StderrProgress progress(err);
  const bool lead = env.rank == 0;
  ProgressSink* shown = lead && !o.outputs.quiet ? &progress : nullptr;
  RankTableWriter writer("allreduce", {schema.table({})}, o.outputs, lead, out, output_lock);
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

int run_allreduce_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  AllreduceOptions o;
  DistributedCommand command;
  command.name = "allreduce";
  command.usage = allreduce_usage();
  command.parse = [&](const std::vector<std::string>& a) { o = parse_options(a); };
  command.nprocs = [&] { return o.nprocs; };
  command.outputs = [&] { return output_files(o.outputs); };
  command.on_gpus = [&] { return o.spec.base.device == "cuda"; };
  command.check = [&](int ranks) {
    for (const auto& c : expand(o.spec, ranks)) check_runnable(c);
  };
  command.rank_job = [&](const dist::TorchrunEnv& env) { return rank_job(env, o); };
  command.run_as_rank = [&](const dist::TorchrunEnv& env, dist::Communicator& comm, std::timed_mutex& lock) {
    return run_as_rank(env, comm, lock, o, out, err);
  };
  command.run_local = [&] {
    std::vector<schema::Table> tables{collective_schema().table({})};
    const int status = run_local_rank_tables("allreduce", args, o.nprocs, o.timeout_s, o.outputs, tables, out, err);
    return status_of_rows(status, tables[0], row_failed);
  };
  return run_distributed_command(command, args, out, err);
}

}  // namespace stepscope::cli
