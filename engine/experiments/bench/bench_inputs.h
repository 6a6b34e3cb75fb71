// The step benchmark's inputs (stepscope-cli bench, the Benchmark tab): one declaration each,
// and the sweep they describe, both ways.
#pragma once

#include "experiments/bench/bench_sweep.h"
#include "schema/input_values.h"

namespace stepscope {

const schema::InputSchema& bench_inputs();
// The sweep the values describe. Throws ConfigError naming the field at fault: options that
// do not go together, a custom model missing a size, a configuration that cannot run anywhere.
SweepSpec bench_spec(const schema::InputValues& values);
// Values that give `spec` back through bench_spec (a custom model is one model).
schema::InputValues bench_values(const SweepSpec& spec);
// Values of one configuration (a sweep of one).
schema::InputValues bench_values(const BenchConfig& config);

}  // namespace stepscope
