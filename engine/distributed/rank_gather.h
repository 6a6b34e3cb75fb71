// Small results every rank holds a piece of, gathered to every rank through the communicator's
// all-gather (tensors on `device`, since NCCL reduces only GPU memory): per-rank numbers and
// per-rank text of any length (a rank's overlap picture as JSON).
#pragma once

#include <c10/core/Device.h>

#include <string>
#include <vector>

#include "distributed/communicator.h"

namespace stepscope::distributed {

// Every rank passes the same count; result[r] is rank r's values.
std::vector<std::vector<double>> gather_numbers(Communicator& comm, const std::vector<double>& mine,
                                                const c10::Device& device);
// Any length per rank; result[r] is rank r's text.
std::vector<std::string> gather_text(Communicator& comm, const std::string& mine, const c10::Device& device);

}  // namespace stepscope::distributed
