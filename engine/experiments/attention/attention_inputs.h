// The attention sweep's inputs (stepscope-cli attention, the Attention tab): one declaration
// each, and the sweep they describe, both ways.
#pragma once

#include "experiments/attention/attention_sweep_spec.h"
#include "schema/input_values.h"

namespace stepscope {

const schema::InputSchema& attention_inputs();
// The sweep the values describe; without --impl, naive, sdpa (where `has_sdpa`) and flash.
// Throws ConfigError naming the field at fault.
AttentionSweepSpec attention_spec(const schema::InputValues& values, bool has_sdpa);
schema::InputValues attention_values(const AttentionSweepSpec& spec);

}  // namespace stepscope
