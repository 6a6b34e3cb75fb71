// The precision lab's inputs: accumulate has none; autocast's are declared here, with the
// request they describe, both ways.
#pragma once

#include "experiments/precision/precision_lab.h"
#include "schema/input_values.h"

namespace stepscope::precision {

const schema::InputSchema& accumulate_inputs();
const schema::InputSchema& autocast_inputs();
AutocastRequest autocast_request(const schema::InputValues& values);
schema::InputValues autocast_values(const AutocastRequest& request);

}  // namespace stepscope::precision
