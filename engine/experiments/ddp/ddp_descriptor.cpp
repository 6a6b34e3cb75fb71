#include "experiments/ddp/ddp_descriptor.h"

#include "experiments/ddp/ddp_case.h"
#include "experiments/ddp/ddp_inputs.h"
#include "experiments/ddp/ddp_memory_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_timeline_schema.h"

namespace stepscope {

ExperimentDescriptor ddp_descriptor() {
  ExperimentDescriptor d;
  d.id = "ddp";
  d.command = {"ddp"};
  d.name = "Distributed data parallel";
  d.summary =
      "time data-parallel training steps: naive, flat, overlap and bucketed gradient all-reduce,\n"
      "optimizer state on every rank or sharded (the seeds' design, ZeRO-1)";
  d.inputs = &ddp_inputs();
  d.usage.synopsis = "stepscope-cli ddp [options]";
  d.usage.description =
      "Trains the reference Transformer data-parallel with AdamW, each rank on its shard of a seeded global\n"
      "batch, and times every step's forward, backward, gradient communication (all of it, and the part left\n"
      "after backward ended) and optimizer: means over the measured steps, the slowest rank's. Started by\n"
      "torchrun or srun (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE set), it\n"
      "is one rank of that job; otherwise it starts --nproc local workers.\n";
  d.usage.epilogue =
      "--csv F also puts each rank's own rows in F's stem + .ranks.csv, and the overlap picture (one step\n"
      "after the measured ones: phases and collectives, or CUPTI's kernels on GPUs) in .timeline.csv;\n"
      "--json F holds all three tables.\n"
      "\n"
      "The local ranks of --nproc N share --threads: each gets threads / N (at least 1).\n"
      "\n"
      "A rank that gets SIGINT or SIGTERM tells the others and ends at once, by that signal; the rows\n"
      "measured before it stay. Ranks started with different options end before their first collective.\n"
      "\n"
      "Exit status: 0 ok, 1 a row or a rank failed or --check found a difference above 1e-5 (fp32 on the\n"
      "CPU), 2 bad options (or ranks started with different ones), 3 this rank ended because another rank\n"
      "failed or was interrupted, 130 interrupted.\n";
  schema::Table ranks = ddp_schema().table({});
  ranks.schema = "ddp.ranks";  // each rank's own rows, in the columns of the job's
  d.tables = {ddp_schema().table({}), ranks, ddp_timeline_schema().table({}), ddp_memory_schema().table({})};
  d.headline = {"step_ms", "exposed_comm_ms"};
  d.runs_as_ranks = true;
  d.check = [](const schema::InputValues& values) {
    const DdpSweepSpec spec = ddp_spec(values);
    for (int64_t ranks : values.integers("nproc")) {
      for (const auto& config : expand(spec, static_cast<int>(ranks))) check_runnable(config);
    }
  };
  d.describe = [](const schema::InputValues& values) {
    const DdpSweepSpec spec = ddp_spec(values);
    return "ddp: " + spec.base.model.name + " " + to_string(spec.base.backend) + " on " + to_string(spec.base.device);
  };
  return d;
}

}  // namespace stepscope
