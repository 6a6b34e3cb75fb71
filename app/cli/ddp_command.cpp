// stepscope-cli ddp: the DDP experiments of issue 11 (naive, flat, overlap and bucketed gradient
// synchronisation) over LibTorch's c10d with Gloo on CPUs, on N local workers it starts itself
// (--nproc) or as one rank of a job torchrun or srun started.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/distributed_command.h"
#include "cli/rank_launch.h"
#include "cli/option_reader.h"
#include "cli/rank_tables.h"
#include "compat/torch_compat.h"
#include "dist/launch_env.h"
#include "dist/worker_launcher.h"
#include "experiments/ddp/ddp_memory_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_sweep.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "io/output_file.h"
#include "io/timeline_trace_export.h"

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
         "  --optimizer O[,O...]   adamw (state on every rank), sharded (whole parameters per rank, owners\n"
         "                         broadcast) or zero1 (gradients reduce-scattered, shards all-gathered)\n"
         "                         (default adamw)\n"
         "  --zero1-gather G[,G...]  when zero1 all-gathers the updated parameters: step-end (batch by\n"
         "                         batch under the next batch's update) or next-forward (each before the\n"
         "                         first layer that uses it); zero1 rows only (default step-end)\n"
         "  --nproc N[,N...]       local workers, one run per value (default 2)\n"
         "  --backend B            gloo (CPU) or nccl (GPUs) (default gloo, nccl with --device cuda)\n"
         "  --model NAME           preset: small, medium, large, xl, 2.7B, tiny, mini (default tiny)\n"
         "  --context N            tokens per sequence (default 256)\n"
         "  --batch N              sequences per rank (default 4)\n"
         "  --precision P          fp32 or bf16 (autocast, fp32 master weights) (default fp32)\n"
         "  --warmup N             warm-up steps (default 1)\n"
         "  --steps N              measured steps (default 5)\n"
         "  --seed N               weights and data (default 0)\n"
         "  --device D             cpu or cuda (each rank on GPU LOCAL_RANK) (default cpu)\n"
         "  --check                then train one process on the whole global batches in-process and report\n"
         "                         the largest parameter difference (fp32 on the CPU must be at most 1e-5)\n"
         "  --profile-memory       record each rank's allocations: live bytes per category (parameters,\n"
         "                         gradients, optimizer state, activations, ...) after initialisation and right\n"
         "                         before and after the last measured step's optimizer step, in F's stem +\n"
         "                         .memory.csv (without a --csv file: stepscope-ddp.memory.csv)\n"
         "  --timeout S            seconds the ranks may take to meet, and each collective (default 60)\n"
         "  --csv F                write the table to F, rewritten after every row (default: stdout); each\n"
         "                         rank's own rows go to F's stem + .ranks.csv, the overlap picture (one step\n"
         "                         after the measured ones: phases and collectives, or CUPTI's kernels on GPUs)\n"
         "                         to .timeline.csv\n"
         "  --json F               also write the run record (all three tables)\n"
         "  --trace F              the overlap pictures as a Perfetto/Chrome trace, a process per rank\n"
         "  --quiet                no progress and no table on stderr\n"
         "\n"
         "A rank that gets SIGINT or SIGTERM tells the others and ends at once, by that signal; the rows\n"
         "measured before it stay. Ranks started with different options end before their first collective.\n"
         "\n"
         "Exit status: 0 ok, 1 a row or a rank failed or --check found a difference above 1e-5 (fp32 on the\n"
         "CPU), 2 bad options (or ranks started with different ones), 3 this rank ended because another rank\n"
         "failed or was interrupted, 130 interrupted.\n";
}

struct DdpOptions {
  DdpSweepSpec spec;
  std::vector<int64_t> nprocs{2};
  int timeout_s = 60;
  TableOutputs outputs;
  std::string trace;
};

DdpOptions parse_options(const std::vector<std::string>& args) {
  const OptionReader options("ddp", args,
                             {"variant", "bucket-mb", "optimizer", "zero1-gather", "nproc", "backend", "model", "context", "batch", "precision",
                              "warmup", "steps", "seed", "device", "timeout", "csv", "json", "trace"},
                             {"check", "profile-memory", "quiet", "help", "worker-rows"});
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
  if (options.has("optimizer")) {
    o.spec.optimizers.clear();
    for (const auto& t : split_list("optimizer", options.get("optimizer"))) {
      o.spec.optimizers.push_back(parse_with("optimizer", t, dist::parse_optimizer_sharding));
    }
  }
  if (options.has("zero1-gather")) {
    o.spec.zero1_gathers.clear();
    for (const auto& t : split_list("zero1-gather", options.get("zero1-gather"))) {
      o.spec.zero1_gathers.push_back(parse_with("zero1-gather", t, dist::parse_zero1_gathers));
    }
  }
  if (options.has("nproc")) o.nprocs = parse_integer_list("nproc", options.get("nproc"));
  base.device = options.get("device", "cpu");
  if (base.device != "cpu" && base.device != "cuda") throw CliError("--device: use cpu or cuda (got '" + base.device + "')");
  base.backend = parse_with("backend", options.get("backend", base.device == "cuda" ? "nccl" : "gloo"), parse_comm_backend);
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
  base.check = options.has("check");
  base.profile_memory = options.has("profile-memory");
  o.timeout_s = static_cast<int>(parse_integer("timeout", options.get("timeout", "60"), 1));
  o.outputs = read_table_outputs(options);
  if (base.profile_memory) o.outputs.required_sides = {"ddp.memory"};
  o.trace = options.get("trace");
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

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// How this rank joins its job; every rank must train the same configurations.
RankJobSpec rank_job(const dist::TorchrunEnv& env, const DdpOptions& o) {
  RankJobSpec job = rank_job_of("ddp", env, o.spec.base.backend, o.timeout_s, o.outputs, o.spec.base.device);
  const auto& s = o.spec;
  const auto& b = s.base;
  job.settings.entries = {
      {"--variant", joined(s.variants, [](dist::DdpVariant v) { return dist::to_string(v); })},
      {"--bucket-mb", joined(s.bucket_mbs, number)},
      {"--optimizer", joined(s.optimizers, [](dist::OptimizerSharding x) { return dist::to_string(x); })},
      {"--zero1-gather", joined(s.zero1_gathers, [](dist::Zero1Gathers x) { return dist::to_string(x); })},
      {"--backend", to_string(b.backend)},
      {"--model", describe(b.model)},
      {"--context", std::to_string(b.context)},
      {"--batch", std::to_string(b.batch)},
      {"--precision", to_string(b.precision)},
      {"--warmup", std::to_string(b.warmup_steps)},
      {"--steps", std::to_string(b.measured_steps)},
      {"--seed", std::to_string(b.seed)},
      {"--device", b.device},
      {"--check", b.check ? "on" : "off"},
      {"--profile-memory", b.profile_memory ? "on" : "off"},
  };
  return job;
}

// This process is one rank of a torchrun-style job, joined: run the sweep.
int run_as_rank(const dist::TorchrunEnv& env, dist::Communicator& comm, std::timed_mutex& output_lock,
                const DdpOptions& o, std::ostream& out, std::ostream& err) {
  DdpSweepSpec spec = o.spec;
  if (spec.base.device == "cuda") spec.base.device = "cuda:" + std::to_string(env.local_rank);
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
  command.usage = ddp_usage();
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
  command.on_gpus = [&] { return o.spec.base.device == "cuda"; };
  command.check = [&](int ranks) {
    for (const auto& c : expand(o.spec, ranks)) validate(c);
  };
  command.rank_job = [&](const dist::TorchrunEnv& env) { return rank_job(env, o); };
  command.run_as_rank = [&](const dist::TorchrunEnv& env, dist::Communicator& comm, std::timed_mutex& lock) {
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
