// stepscope-cli ddp: the DDP experiments of issue 11 (naive, flat, overlap and bucketed gradient
// synchronisation) over LibTorch's c10d with Gloo on CPUs, on N local workers it starts itself
// (--nproc) or as one rank of a job torchrun or srun started.
#include <chrono>
#include <iostream>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/option_reader.h"
#include "cli/rank_tables.h"
#include "compat/torch_compat.h"
#include "dist/c10d_communicator.h"
#include "dist/launch_env.h"
#include "dist/worker_launcher.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_sweep.h"

namespace stepscope::cli {

namespace {

std::string ddp_usage() {
  return "usage: stepscope-cli ddp [options]\n"
         "\n"
         "Trains the reference Transformer data-parallel with AdamW, each rank on its shard of a seeded global\n"
         "batch, and times every step's forward, backward, gradient communication (all of it, and the part left\n"
         "after backward ended) and optimizer: means over the measured steps, the slowest rank's. Started by\n"
         "torchrun or srun (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE set), it\n"
         "is one rank of that job; otherwise it starts --nproc local workers.\n"
         "\n"
         "  --variant V[,V...]     naive, flat, overlap, bucketed (default all four)\n"
         "  --bucket-mb M[,M...]   bucket sizes in MiB, bucketed only (default 1,10,100)\n"
         "  --nproc N[,N...]       local workers, one run per value (default 2)\n"
         "  --backend B            gloo (default; nccl comes with GPU support)\n"
         "  --model NAME           preset: small, medium, large, xl, 2.7B, tiny, mini (default tiny)\n"
         "  --context N            tokens per sequence (default 256)\n"
         "  --batch N              sequences per rank (default 4)\n"
         "  --precision P          fp32 (the only one for now)\n"
         "  --warmup N             warm-up steps (default 1)\n"
         "  --steps N              measured steps (default 5)\n"
         "  --seed N               weights and data (default 0)\n"
         "  --device D             cpu (default)\n"
         "  --check                then train one process on the whole global batches in-process and report\n"
         "                         the largest parameter difference (fp32 on the CPU: at most 1e-5)\n"
         "  --timeout S            seconds a rank may stay silent or a collective wait (default 60)\n"
         "  --csv F                write the table to F, rewritten after every row (default: stdout)\n"
         "  --json F               also write the run record\n"
         "  --quiet                no progress and no table on stderr\n"
         "\n"
         "Exit status: 0 ok, 1 a row or a rank failed or --check found a difference above 1e-5, 2 bad options,\n"
         "130 interrupted.\n";
}

constexpr double kCheckTolerance = 1e-5;

struct DdpOptions {
  DdpSweepSpec spec;
  std::vector<int64_t> nprocs{2};
  int timeout_s = 60;
  TableOutputs outputs;
};

DdpOptions parse_options(const std::vector<std::string>& args) {
  const OptionReader options("ddp", args,
                             {"variant", "bucket-mb", "nproc", "backend", "model", "context", "batch", "precision",
                              "warmup", "steps", "seed", "device", "timeout", "csv", "json"},
                             {"check", "quiet", "help", "worker-rows"});
  DdpOptions o;
  DdpConfig& base = o.spec.base;
  if (options.has("variant")) {
    o.spec.variants.clear();
    for (const auto& t : split_list("variant", options.get("variant"))) {
      o.spec.variants.push_back(parse_with("variant", t, dist::parse_ddp_variant));
    }
  }
  if (options.has("bucket-mb")) {
    o.spec.bucket_mbs.clear();
    for (const auto& t : split_list("bucket-mb", options.get("bucket-mb"))) {
      o.spec.bucket_mbs.push_back(parse_positive_number("bucket-mb", t));
    }
  }
  if (options.has("nproc")) o.nprocs = parse_integer_list("nproc", options.get("nproc"));
  base.backend = parse_with("backend", options.get("backend", "gloo"), parse_comm_backend);
  base.model = parse_with("model", options.get("model", "tiny"), model_preset);
  base.context = parse_integer("context", options.get("context", "256"), 1);
  base.batch = parse_integer("batch", options.get("batch", "4"), 1);
  base.precision = parse_with("precision", options.get("precision", "fp32"), parse_precision);
  const int64_t warmup = parse_integer("warmup", options.get("warmup", "1"), 0);
  const int64_t steps = parse_integer("steps", options.get("steps", "5"), 1);
  if (warmup > 1000000 || steps > 1000000) throw CliError("--warmup/--steps: at most 1000000 steps");
  base.warmup_steps = static_cast<int>(warmup);
  base.measured_steps = static_cast<int>(steps);
  base.seed = static_cast<uint64_t>(parse_integer("seed", options.get("seed", "0"), 0));
  base.device = options.get("device", "cpu");
  base.check = options.has("check");
  o.timeout_s = static_cast<int>(parse_integer("timeout", options.get("timeout", "60"), 1));
  o.outputs.csv = options.get("csv");
  if (o.outputs.csv == "-") o.outputs.csv.clear();
  o.outputs.json = options.get("json");
  o.outputs.quiet = options.has("quiet");
  o.outputs.worker_rows = options.has("worker-rows");
  return o;
}

void check_configs(const DdpOptions& o, int ranks) {
  try {
    for (const auto& c : expand(o.spec, ranks)) validate(c);
  } catch (const ConfigError& e) {
    throw CliError((e.field().empty() ? "" : "--" + e.field() + ": ") + e.what());
  }
}

bool row_failed(const DdpResult& r) {
  return r.status == RunStatus::failed || r.max_param_diff > kCheckTolerance;
}

// This process is one rank of a torchrun-style job: join it and run the sweep.
int run_as_rank(const dist::TorchrunEnv& env, const DdpOptions& o, std::ostream& out, std::ostream& err) {
  const auto configs = expand(o.spec, env.world_size);
  const auto& schema = ddp_schema();
  StderrProgress progress(err);
  const bool lead = env.rank == 0;
  auto comm = dist::connect_c10d(env, o.spec.base.backend, std::chrono::seconds(o.timeout_s));
  RankTableWriter writer("ddp", schema.table({}), o.outputs, lead, out);
  bool failed = false;
  run_ddp_sweep(configs, *comm, lead && !o.outputs.quiet ? &progress : nullptr, &interrupt_flag(),
                [&](const DdpResult& row) {
                  failed = failed || row_failed(row);
                  writer.write(schema.values(row));
                });
  if (failed) return kExitFailure;
  return interrupt_flag().is_cancelled() ? kExitInterrupted : kExitOk;
}

// Starts --nproc local workers per value and gathers rank 0's rows into one table.
int run_local_ranks(const std::vector<std::string>& args, const DdpOptions& o, std::ostream& out, std::ostream& err) {
  schema::Table table = ddp_schema().table({});
  int status = run_local_rank_tables("ddp", args, o.nprocs, o.timeout_s, o.outputs, table, out, err);
  if (status == kExitInterrupted) return status;
  const auto status_column = static_cast<size_t>(table.column_index("status"));
  const auto diff_column = static_cast<size_t>(table.column_index("max_param_diff"));
  for (const auto& row : table.rows) {
    if (schema::text_of(row[status_column]) == "failed") status = kExitFailure;
    if (schema::number_of(row[diff_column]).value_or(0) > kCheckTolerance) status = kExitFailure;
  }
  return status;
}

}  // namespace

int run_ddp_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  DdpOptions o;
  std::optional<dist::TorchrunEnv> env;
  try {
    for (const auto& a : args) {
      if (a == "--help" || a == "-h") {
        out << ddp_usage();
        return kExitOk;
      }
    }
    o = parse_options(args);
    env = dist::TorchrunEnv::from_environment();
    for (int64_t n : o.nprocs) {
      if (n < 1 || n > dist::kMaxLocalWorkers) throw CliError("--nproc: " + std::to_string(n) + " is not between 1 and 256");
      check_configs(o, env ? env->world_size : static_cast<int>(n));
    }
    if (!o.outputs.worker_rows) check_outputs({{"--csv", o.outputs.csv.empty() ? "-" : o.outputs.csv}, {"--json", o.outputs.json}});
  } catch (const CliError& e) {
    err << "stepscope-cli ddp: error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const ConfigError& e) {
    err << "stepscope-cli ddp: error: " << e.what() << '\n';
    return kExitUsage;
  }
  try {
    if (env) return run_as_rank(*env, o, out, err);
    return run_local_ranks(args, o, out, err);
  } catch (const std::exception& e) {
    err << "stepscope-cli ddp: error: " << compat::error_message(e) << '\n';
    return kExitFailure;
  }
}

}  // namespace stepscope::cli
