// The collective benchmark's inputs (stepscope-cli collectives, the Collectives tab): one
// declaration each, and the sweep they describe, both ways. --nproc and --timeout are the
// job's (common_inputs.h), read from the values by whoever launches it.
#pragma once

#include "experiments/collectives/collective_sweep_spec.h"
#include "schema/input_values.h"

namespace stepscope {

const schema::InputSchema& collective_inputs();
CollectiveSweepSpec collective_spec(const schema::InputValues& values);
// The sweep's values; the job's (--nproc, --timeout) are left at their defaults.
schema::InputValues collective_values(const CollectiveSweepSpec& spec);

}  // namespace stepscope
