// stepscope-cli plan: the memory and batch accounting users do before a run (issue 12), every
// number with its formula: per device master weights, accumulated gradients, optimizer state and
// activations for a model, precisions and a layout; the FSDP size that fits a device; the TPU
// Scaling Book's compute-bound batch; with a measured all-reduce run, the DDP bucket optimum.
#include <iostream>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/option_reader.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/bucket_overhead_reading.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "planner/plan.h"
#include "planner/plan_json.h"
#include "planner/plan_schema.h"
#include "planner/plan_validate.h"

namespace stepscope::cli {

namespace {

std::string plan_usage() {
  return "usage: stepscope-cli plan [options]\n"
         "\n"
         "Plans memory per device before a run, each number with its formula (bytes, GB = 1e9 B, GiB = 2^30 B):\n"
         "master weights, accumulated gradients, optimizer state (AdamW: two moments), activations saved for\n"
         "backward per token and for the batch, how many 80 GB and 80 GiB GPUs one copy takes, the FSDP size\n"
         "that fits --device-memory with --activation-fraction of the activations sharded, and the TPU Scaling\n"
         "Book's per-device batch at which the forward pass is compute-bound.\n"
         "\n"
         "  --model NAME           a preset (tiny, mini, small, medium, large, xl, 2.7B), xxl-ffn (the seeds' XXL:\n"
         "                         d_model 16384, d_ff 53248, 126 blocks of two linear layers) or custom\n"
         "  --blocks B             transformer or ffn-only (custom shapes)\n"
         "  --d-model N, --d-ff N, --layers N, --heads N, --vocab N   change the model's shape (then custom)\n"
         "  --weights P, --grads P, --optimizer-state P, --activations P, --comm P\n"
         "                         fp32, bf16 or fp16 (defaults: the seeds' fp32 x3, bf16 activations and comm)\n"
         "  --dp N, --fsdp N, --tp N  data-parallel, FSDP and tensor-parallel sizes (default 1 each)\n"
         "  --activation-fraction F   the share of activations FSDP shards (default 0.5: every second layer)\n"
         "  --zero1                the optimizer state split over the data-parallel ranks too\n"
         "  --batch N              sequences per device (default 1)\n"
         "  --context N            tokens per sequence (default 1: per token)\n"
         "  --device-memory S      e.g. 95GB (TPU v5p, default), 80GiB\n"
         "  --w-ici B, --c-flops F, --m-x N, --m-y N, --x N, --y N   the Scaling Book's ICI bandwidth (bytes/s),\n"
         "                         FLOPs/s per chip, mesh axes of X and Y, FSDP and TP sizes (default TPU v5p)\n"
         "  --allreduce F          a run record of `stepscope-cli allreduce --json F`: fits time = o + bytes/w\n"
         "                         to its all-reduce rows and adds the DDP bucket optimum\n"
         "  --csv F                the table (default: stdout)\n"
         "  --json F               named fields: parameters, master_weights_bytes, gradients_bytes, ...\n"
         "  --quiet                no table on stderr\n"
         "\n"
         "Exit status: 0 ok, 2 bad options or inputs.\n";
}

struct PlanOptions {
  planner::PlanRequest request;
  std::string allreduce;  // a run record read once the outputs are checked
  std::string csv, json;
  bool quiet = false;
};

Precision precision_option(const OptionReader& o, const std::string& key, Precision fallback) {
  return o.has(key) ? parse_with(key, o.get(key), parse_precision) : fallback;
}

// The all-reduce line of the first backend/world size/type among a run record's collective rows.
AllReduceFit fit_from_run(const std::string& path) {
  RunRecord record;
  try {
    record = read_run_record_file(path);  // bounded: /dev/zero is refused by its size
  } catch (const RunRecordError& e) {
    throw CliError(std::string("--allreduce: ") + e.what());
  }
  for (const auto& table : record.tables) {
    if (table.schema != collective_schema().id) continue;
    const auto rows = collective_rows(table);
    const auto keys = all_reduce_keys(rows);
    if (keys.empty()) break;
    return fit_all_reduce(all_reduce_samples(rows, keys.front()));
  }
  throw CliError("--allreduce: " + path + " has no measured all-reduce rows");
}

// The option a planner field comes from: "m_x" is --m-x; the all-reduce fit's are --allreduce.
std::string option_of(const std::string& field) {
  if (field == "all_reduce" || field == "time_us" || field == "size_bytes") return "--allreduce";
  std::string option = "--" + field;
  for (char& c : option) c = c == '_' ? '-' : c;
  return option;
}

PlanOptions parse_options(const std::vector<std::string>& args) {
  const OptionReader o("plan", args,
                       {"model", "blocks", "d-model", "d-ff", "layers", "heads", "vocab", "weights", "grads",
                        "optimizer-state", "activations", "comm", "dp", "fsdp", "tp", "activation-fraction",
                        "batch", "context", "device-memory", "w-ici", "c-flops", "m-x", "m-y", "x", "y",
                        "allreduce", "csv", "json"},
                       {"zero1", "quiet", "help"});
  PlanOptions p;
  planner::PlanRequest& r = p.request;
  r.model = parse_with("model", o.get("model", "xxl-ffn"), [](const std::string& n) { return planner::plan_model(n); });
  const auto shape = [&](const char* key, int64_t& field) {
    if (!o.has(key)) return;
    field = parse_integer(key, o.get(key), 1);
    r.model.name = "custom";
  };
  if (o.has("blocks")) {
    r.model.blocks = parse_with("blocks", o.get("blocks"), planner::parse_block_kind);
    r.model.name = "custom";
  }
  shape("d-model", r.model.d_model);
  shape("d-ff", r.model.d_ff);
  shape("layers", r.model.layers);
  shape("heads", r.model.heads);
  shape("vocab", r.model.vocab);
  auto& pr = r.precisions;
  pr.master_weights = precision_option(o, "weights", pr.master_weights);
  pr.gradients = precision_option(o, "grads", pr.gradients);
  pr.optimizer_state = precision_option(o, "optimizer-state", pr.optimizer_state);
  pr.activations = precision_option(o, "activations", pr.activations);
  pr.communication = precision_option(o, "comm", pr.communication);
  r.layout.data_parallel = parse_integer("dp", o.get("dp", "1"), 1);
  r.layout.fsdp = parse_integer("fsdp", o.get("fsdp", "1"), 1);
  r.layout.tensor_parallel = parse_integer("tp", o.get("tp", "1"), 1);
  if (o.has("activation-fraction")) {
    r.layout.fsdp_activation_fraction = parse_positive_number("activation-fraction", o.get("activation-fraction"));
  }
  r.layout.shard_optimizer_over_dp = o.has("zero1");
  r.batch = parse_integer("batch", o.get("batch", "1"), 1);
  r.context = parse_integer("context", o.get("context", "1"), 1);
  if (o.has("device-memory")) r.device_memory_bytes = double(parse_size_bytes("device-memory", o.get("device-memory")));
  auto& sb = r.scaling_book;
  if (o.has("w-ici")) sb.w_ici_Bps = parse_positive_number("w-ici", o.get("w-ici"));
  if (o.has("c-flops")) sb.c_flops = parse_positive_number("c-flops", o.get("c-flops"));
  if (o.has("m-x")) sb.m_x = parse_positive_number("m-x", o.get("m-x"));
  if (o.has("m-y")) sb.m_y = parse_positive_number("m-y", o.get("m-y"));
  if (o.has("x")) sb.x = parse_integer("x", o.get("x"), 1);
  if (o.has("y")) sb.y = parse_integer("y", o.get("y"), 1);
  p.allreduce = o.get("allreduce");
  p.csv = o.get("csv");
  if (p.csv == "-") p.csv.clear();
  p.json = o.get("json");
  p.quiet = o.has("quiet");
  return p;
}

}  // namespace

int run_plan_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      out << plan_usage();
      return kExitOk;
    }
  }
  try {
    PlanOptions o = parse_options(args);
    check_outputs({{"--csv", o.csv.empty() ? "-" : o.csv}, {"--json", o.json}}, {{"--allreduce", o.allreduce}});
    if (!o.allreduce.empty()) o.request.all_reduce = fit_from_run(o.allreduce);
    planner::validate(o.request);
    const planner::Plan plan = planner::make_plan(o.request);
    const schema::Table table = planner::plan_table(plan);
    if (o.csv.empty()) {
      write_table_csv(out, table);
    } else {
      replace_file(o.csv, [&](std::ostream& f) { write_table_csv(f, table); });
    }
    if (!o.json.empty()) replace_file(o.json, [&](std::ostream& f) { planner::write_plan_json(f, plan); });
    if (!o.quiet) print_table(err, table);
    return kExitOk;
  } catch (const CliError& e) {
    err << "stepscope-cli plan: error: " << e.what() << '\n';
  } catch (const ConfigError& e) {
    err << "stepscope-cli plan: error: " << (e.field().empty() ? "" : option_of(e.field()) + ": ") << e.what() << '\n';
  } catch (const std::exception& e) {
    err << "stepscope-cli plan: error: " << e.what() << '\n';
  }
  return kExitUsage;
}

}  // namespace stepscope::cli
