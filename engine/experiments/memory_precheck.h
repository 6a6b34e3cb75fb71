// A configuration that clearly cannot fit is an out-of-memory result before anything is built:
// otherwise a CPU run grows into swap until the kernel kills it, and nothing is reported.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/device.h"

namespace stepscope {

// Thrown by a case that refuses to start; the harness records it as OOM, with this message.
class EstimatedOutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The estimate is within about 10% for the handout's models, so only a configuration that
// needs more than this factor of what is available is refused without trying.
inline constexpr double kRefuseAboveAvailable = 1.5;

// What `ranks` ranks of a job on one machine need together, each `per_rank_bytes`; saturates
// at int64's largest value instead of wrapping.
int64_t bytes_for_ranks(int64_t per_rank_bytes, int64_t ranks);

// Throws EstimatedOutOfMemory when `needed_bytes` exceeds kRefuseAboveAvailable x
// `available_bytes` (unknown: < 0, never refused); `what` says what the estimate holds.
void refuse_if_clearly_too_large(int64_t needed_bytes, int64_t available_bytes, const Device& device,
                                 const std::string& what);

}  // namespace stepscope
