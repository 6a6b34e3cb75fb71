#include "experiments/collectives/collective_descriptor.h"

#include "experiments/collectives/collective_inputs.h"
#include "experiments/collectives/collective_schema.h"

namespace stepscope {

ExperimentDescriptor collective_descriptor() {
  ExperimentDescriptor d;
  d.id = "collectives";
  d.command = {"collectives"};
  d.former_command = {"allreduce"};
  d.name = "Collectives";
  d.summary = "time all-reduce, reduce-scatter, all-gather and broadcast over Gloo or NCCL (nccl-tests' table)";
  d.inputs = &collective_inputs();
  d.usage.synopsis = "stepscope-cli collectives [options]";
  d.usage.description =
      "Times collectives over LibTorch's c10d as nccl-tests does: per op, element type and size, the mean\n"
      "time of the slowest rank, algbw = size / time, busbw = algbw x 2(n-1)/n (all-reduce), (n-1)/n\n"
      "(reduce-scatter, all-gather) or 1 (broadcast), and #wrong: elements that differ from the expected\n"
      "result. Started by torchrun or srun (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK,\n"
      "LOCAL_WORLD_SIZE set), it is one rank of that job; otherwise it starts --nproc local workers.\n";
  d.usage.epilogue =
      "The local ranks of --nproc N share --threads: each gets threads / N (at least 1).\n"
      "\n"
      "A rank that gets SIGINT or SIGTERM tells the others and ends at once, by that signal; the rows\n"
      "measured before it stay. Ranks started with different options end before their first collective.\n"
      "\n"
      "Exit status: 0 ok, 1 a row or a rank failed, 2 bad options (or ranks started with different ones),\n"
      "3 this rank ended because another rank failed or was interrupted, 130 interrupted.\n";
  d.tables = {collective_schema().table({})};
  d.headline = {"busbw_gbps"};
  d.runs_as_ranks = true;
  d.check = [](const schema::InputValues& values) {
    const CollectiveSweepSpec spec = collective_spec(values);
    for (int64_t ranks : values.integers("nproc")) {
      for (const auto& config : expand(spec, static_cast<int>(ranks))) validate(config);
    }
  };
  d.describe = [](const schema::InputValues& values) {
    const CollectiveSweepSpec spec = collective_spec(values);
    return "collectives: " + to_string(spec.base.backend) + " on " + to_string(spec.base.device);
  };
  return d;
}

}  // namespace stepscope
