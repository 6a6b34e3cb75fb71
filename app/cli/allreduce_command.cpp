// stepscope-cli allreduce: nccl-tests' table over LibTorch's c10d (Gloo on CPUs, NCCL on GPUs),
// on N local workers it starts itself (--nproc) or as one rank of a job torchrun or srun started.
#include <chrono>
#include <iostream>

#include <ATen/ATen.h>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/option_reader.h"
#include "cli/rank_launch.h"
#include "cli/rank_tables.h"
#include "compat/torch_compat.h"
#include "dist/c10d_communicator.h"
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
         "  --iters N              measured iterations (default 20)\n"
         "  --device D             cpu or cuda (each rank on GPU LOCAL_RANK) (default cpu)\n"
         "  --timeout S            seconds a rank may stay silent or a collective wait (default 60)\n"
         "  --csv F                write the table to F, rewritten after every row (default: stdout)\n"
         "  --json F               also write the run record\n"
         "  --quiet                no progress and no table on stderr\n"
         "\n"
         "Exit status: 0 ok, 1 a row or a rank failed, 2 bad options, 130 interrupted.\n";
}

struct AllreduceOptions {
  CollectiveSweepSpec spec;
  std::vector<int64_t> nprocs{2};
  int timeout_s = 60;
  std::string csv, json;
  bool quiet = false, worker_rows = false;
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
  o.csv = options.get("csv");
  if (o.csv == "-") o.csv.clear();
  o.json = options.get("json");
  o.quiet = options.has("quiet");
  o.worker_rows = options.has("worker-rows");
  return o;
}

void check_configs(const AllreduceOptions& o, int ranks) {
  try {
    for (const auto& c : expand(o.spec, ranks)) check_runnable(c);
  } catch (const ConfigError& e) {
    throw CliError((e.field().empty() ? "" : "--" + e.field() + ": ") + e.what());
  }
}

TableOutputs table_outputs(const AllreduceOptions& o) { return {o.csv, o.json, o.quiet, o.worker_rows}; }

// This process is one rank of a torchrun-style job: join it and run the sweep.
int run_as_rank(const dist::TorchrunEnv& env, const AllreduceOptions& o, std::ostream& out, std::ostream& err) {
  AllreduceOptions local = o;
  if (o.spec.base.device == "cuda") local.spec.base.device = "cuda:" + std::to_string(env.local_rank);
  if (local.spec.base.device != "cpu") compat::set_cuda_device(env.local_rank);
  const auto configs = expand(local.spec, env.world_size);
  const auto& schema = collective_schema();
  std::vector<CollectiveResult> rows;
  StderrProgress progress(err);
  const bool lead = env.rank == 0;
  auto comm = dist::connect_c10d(env, local.spec.base.backend, std::chrono::seconds(o.timeout_s));
  RankTableWriter writer("allreduce", schema.table({}), table_outputs(o), lead, out);
  run_collective_sweep(configs, *comm, lead && !o.quiet ? &progress : nullptr, &interrupt_flag(),
                       [&](const CollectiveResult& row) {
                         rows.push_back(row);
                         writer.write(schema.values(row));
                       });
  for (const auto& r : rows) {
    if (r.status == RunStatus::failed || r.wrong > 0) return kExitFailure;
  }
  return interrupt_flag().is_cancelled() ? kExitInterrupted : kExitOk;
}

// Starts --nproc local workers per value and gathers rank 0's rows into one table.
int run_local_ranks(const std::vector<std::string>& args, const AllreduceOptions& o, std::ostream& out,
                    std::ostream& err) {
  schema::Table table = collective_schema().table({});
  int status = run_local_rank_tables("allreduce", args, o.nprocs, o.timeout_s, table_outputs(o), table, out, err);
  if (status == kExitInterrupted) return status;
  const int status_column = table.column_index("status"), wrong_column = table.column_index("wrong");
  for (const auto& row : table.rows) {
    if (schema::text_of(row[static_cast<size_t>(status_column)]) == "failed") status = kExitFailure;
    if (schema::number_of(row[static_cast<size_t>(wrong_column)]).value_or(0) > 0) status = kExitFailure;
  }
  return status;
}

}  // namespace

int run_allreduce_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  AllreduceOptions o;
  std::optional<dist::TorchrunEnv> env;
  try {
    for (const auto& a : args) {
      if (a == "--help" || a == "-h") {
        out << allreduce_usage();
        return kExitOk;
      }
    }
    o = parse_options(args);
    env = dist::TorchrunEnv::from_environment();
    for (int64_t n : o.nprocs) {
      if (n < 1 || n > dist::kMaxLocalWorkers) throw CliError("--nproc: " + std::to_string(n) + " is not between 1 and 256");
      check_configs(o, env ? env->world_size : static_cast<int>(n));
    }
    if (!o.worker_rows) check_outputs({{"--csv", o.csv.empty() ? "-" : o.csv}, {"--json", o.json}});
  } catch (const CliError& e) {
    err << "stepscope-cli allreduce: error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const ConfigError& e) {
    err << "stepscope-cli allreduce: error: " << e.what() << '\n';
    return kExitUsage;
  }
  try {
    if (env) return run_as_rank(*env, o, out, err);
    return run_local_ranks(args, o, out, err);
  } catch (const std::exception& e) {
    err << "stepscope-cli allreduce: error: " << compat::error_message(e) << '\n';
    return kExitFailure;
  }
}

}  // namespace stepscope::cli
