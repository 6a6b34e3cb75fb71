#include "experiments/attention/attention_descriptor.h"

#include "compat/torch_compat.h"
#include "experiments/attention/attention_inputs.h"
#include "experiments/attention/attention_reading.h"
#include "experiments/attention/attention_schema.h"
#include "experiments/attention/attention_sweep.h"
#include "experiments/sweep_outcome.h"

namespace stepscope {

namespace {

AttentionSweepSpec spec_of(const schema::InputValues& values) {
  return attention_spec(values, compat::has_scaled_dot_product_attention());
}

void check(const schema::InputValues& values) {
  const AttentionSweepSpec spec = spec_of(values);
  validate_rounds(spec);
  for (const auto& config : expand(spec)) check_runnable(config);
}

ExperimentOutcome run(const schema::InputValues& values, ProgressSink* progress, const CancelFlag* cancel,
                      const TablePublisher& publish) {
  const AttentionSweepSpec spec = spec_of(values);
  const std::vector<AttentionConfig> configs = expand(spec);
  SweepOutcome<AttentionResult> outcome(attention_schema(), configs.size(), publish);
  run_attention_sweep(configs, sweep_rounds(spec), progress, cancel,
                      [&](const AttentionResult& r) { outcome.add(r); });
  return outcome.finish(cancel);
}

}  // namespace

ExperimentDescriptor attention_descriptor() {
  ExperimentDescriptor d;
  d.id = "attention";
  d.command = {"attention"};
  d.name = "Attention";
  d.summary = "time naive, sdpa and flash attention forward and backward, checked against naive fp32";
  d.inputs = &attention_inputs();
  d.usage.synopsis =
      "stepscope-cli attention [options]\n"
      "       stepscope-cli attention check --q Q.npy --k K.npy --v V.npy [--do DO.npy] [--causal]\n"
      "                                     [--impl I] [--precision P] [--device D] --out DIR";
  d.usage.description =
      "Times attention's forward and backward passes for every combination of the comma lists, and\n"
      "checks each implementation's O, dQ, dK and dV against naive attention in fp32 on the same inputs.\n";
  d.usage.epilogue =
      "check: runs one implementation on your float32/float64 .npy inputs of shape (batch, seq, d) or\n"
      "(batch, heads, seq, d) and writes o.npy and lse.npy (and dq.npy, dk.npy, dv.npy with --do), float32,\n"
      "into DIR. --impl picks what computes O and the gradients (default flash); lse.npy always comes from\n"
      "the flash forward pass (naive and sdpa do not return it). --precision rounds the inputs first.\n"
      "\n"
      "Exit status: 0 ok, 1 a configuration failed, 2 bad options, 130 interrupted.\n";
  d.tables = {attention_schema().table({})};
  d.headline = {"fwd_bwd_ms", "peak_bytes"};
  d.check = check;
  d.run = run;
  // The smallest configuration out of memory with its accounting, and how what is kept for the
  // backward grows with the sequence length.
  d.reading = [](const std::vector<schema::Table>& tables) {
    return tables.empty() ? std::string() : attention_memory_reading(tables.front());
  };
  d.describe = [](const schema::InputValues& values) {
    const AttentionSweepSpec spec = spec_of(values);
    return "attention: " + std::to_string(expand(spec).size()) + " configurations on " + to_string(spec.base.device);
  };
  return d;
}

}  // namespace stepscope
