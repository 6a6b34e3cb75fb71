#include "experiments/bench/bench_descriptor.h"

#include "experiments/bench/bench_inputs.h"
#include "experiments/bench/bench_schema.h"
#include "experiments/bench/step_benchmark.h"
#include "experiments/sweep_outcome.h"

namespace stepscope {

namespace {

// Every configuration is checked before anything runs.
void check(const schema::InputValues& values) {
  for (const auto& config : expand(bench_spec(values))) check_runnable(config);
}

ExperimentOutcome run(const schema::InputValues& values, ProgressSink* progress, const CancelFlag* cancel,
                      const TablePublisher& publish) {
  const auto configs = expand(bench_spec(values));
  SweepOutcome<BenchResult> outcome(bench_schema(), configs.size(), publish);
  run_sweep(configs, progress, cancel, [&](const BenchResult& r) { outcome.add(r); });
  return outcome.finish(cancel);
}

}  // namespace

ExperimentDescriptor bench_descriptor() {
  ExperimentDescriptor d;
  d.id = "bench";
  d.command = {"bench"};
  d.name = "Step benchmark";
  d.summary = "time forward / backward / optimizer steps of the reference Transformer (sweeps by comma lists)";
  d.inputs = &bench_inputs();
  d.usage.synopsis = "stepscope-cli bench [options]";
  d.usage.description =
      "Runs W warm-up steps, then N measured steps, synchronising after each, for every combination\n"
      "of the comma-separated values given. Progress goes to stderr, results to CSV.\n";
  d.usage.epilogue =
      "A configuration that runs out of memory becomes a row with status OOM and the sweep goes on.\n"
      "Exit status: 0 when every row is ok or OOM, 1 when a row failed, 2 for bad options, 130 if interrupted.\n";
  d.tables = {bench_schema().table({})};
  d.headline = {"total_mean_ms", "peak_memory_bytes"};
  d.check = check;
  d.run = run;
  d.describe = [](const schema::InputValues& values) {
    const auto configs = expand(bench_spec(values));
    return configs.size() == 1 ? describe(configs.front())
                               : "bench: " + std::to_string(configs.size()) + " configurations";
  };
  return d;
}

}  // namespace stepscope
