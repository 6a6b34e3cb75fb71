// The DDP experiment's inputs (stepscope-cli ddp, the DDP tab): one declaration each,
// and the sweep they describe, both ways. --nproc, --timeout and --trace are the job's and the
// output's, read from the values by whoever launches it.
#pragma once

#include "experiments/ddp/ddp_types.h"
#include "schema/input_values.h"

namespace stepscope {

const schema::InputSchema& ddp_inputs();
DdpSweepSpec ddp_spec(const schema::InputValues& values);
// The sweep's values; the job's and the output's are left at their defaults.
schema::InputValues ddp_values(const DdpSweepSpec& spec);

}  // namespace stepscope
