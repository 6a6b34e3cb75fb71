// stepscope-cli allreduce: nccl-tests' table over LibTorch's c10d (Gloo on CPUs, NCCL on GPUs),
// on N local workers it starts itself (--nproc) or as one rank of a job torchrun or srun started.
#include <chrono>
#include <iostream>

#include <ATen/ATen.h>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/option_reader.h"
#include "cli/rank_launch.h"
#include "compat/torch_compat.h"
#include "dist/c10d_communicator.h"
#include "dist/launch_env.h"
#include "experiments/collectives/collective_case.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/collectives/collective_sweep.h"
#include "io/csv_writer.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"

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
  CsvWriter stdout_csv(out);
  if (lead && !o.worker_rows && o.csv.empty()) stdout_csv.write_row(csv_header(schema.columns()));
  run_collective_sweep(configs, *comm, lead && !o.quiet ? &progress : nullptr, &interrupt_flag(),
                       [&](const CollectiveResult& row) {
                         rows.push_back(row);
                         if (!lead) return;
                         if (o.worker_rows) return emit_row_line(out, schema.columns(), schema.values(row));
                         if (o.csv.empty()) stdout_csv.write_row(csv_row(schema.columns(), schema.values(row)));
                         else replace_file(o.csv, [&](std::ostream& f) { write_table_csv(f, schema.table(rows)); });
                       });
  if (lead && !o.worker_rows && !o.json.empty()) {
    replace_file(o.json, [&](std::ostream& f) {
      f << write_run_record(RunRecord{command_environment("allreduce", {}), {}, {schema.table(rows)}});
    });
  }
  for (const auto& r : rows) {
    if (r.status == RunStatus::failed || r.wrong > 0) return kExitFailure;
  }
  return interrupt_flag().is_cancelled() ? kExitInterrupted : kExitOk;
}

// Starts --nproc local workers per value and gathers rank 0's rows into one table.
int run_local_ranks(const std::vector<std::string>& args, const AllreduceOptions& o, std::ostream& out,
                    std::ostream& err) {
  const auto& schema = collective_schema();
  const auto columns = schema.columns();
  schema::Table table{schema.id, columns, {}};
  CsvWriter stdout_csv(out);
  if (o.csv.empty()) stdout_csv.write_row(csv_header(columns));
  const RunEnvironment environment = command_environment("allreduce", args);
  const auto publish = [&](const std::vector<schema::Value>& row) {
    table.rows.push_back(row);
    if (o.csv.empty()) {
      stdout_csv.write_row(csv_row(columns, row));
      out.flush();
    } else {
      replace_file(o.csv, [&](std::ostream& f) { write_table_csv(f, table); });
    }
    if (!o.json.empty()) {
      replace_file(o.json, [&](std::ostream& f) { f << write_run_record(RunRecord{environment, {}, {table}}); });
    }
  };
  auto worker_args = without_options(args, {"nproc", "csv", "json"}, {});
  int status = kExitOk;
  for (int64_t n : o.nprocs) {
    const LocalRanksRun run = run_on_local_ranks({"", "allreduce", worker_args, static_cast<int>(n),
                                                  std::chrono::seconds(o.timeout_s)},
                                                 columns, publish, o.quiet ? nullptr : &err, &interrupt_flag());
    if (run.outcome.status == dist::LaunchStatus::cancelled || interrupt_flag().is_cancelled()) {
      err << "stepscope-cli allreduce: interrupted; " << table.rows.size() << " row(s) written\n";
      return kExitInterrupted;
    }
    if (!run.outcome.ok()) {
      err << "stepscope-cli allreduce: " << n << " ranks: " << run.outcome.message << '\n';
      status = kExitFailure;
    }
  }
  if (!o.quiet) print_table(err, table);
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
