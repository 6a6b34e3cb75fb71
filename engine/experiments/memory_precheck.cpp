#include "experiments/memory_precheck.h"

#include <limits>

#include "schema/value_format.h"

namespace stepscope {

namespace {

std::string gib(int64_t bytes) { return schema::significant(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0)) + " GiB"; }

}  // namespace

int64_t bytes_for_ranks(int64_t per_rank_bytes, int64_t ranks) {
  int64_t total = 0;
  if (__builtin_mul_overflow(per_rank_bytes, ranks, &total)) return std::numeric_limits<int64_t>::max();
  return total;
}

void refuse_if_clearly_too_large(int64_t needed_bytes, int64_t available_bytes, const Device& device,
                                 const std::string& what) {
  if (available_bytes < 0) return;
  if (static_cast<double>(needed_bytes) <= kRefuseAboveAvailable * static_cast<double>(available_bytes)) return;
  throw EstimatedOutOfMemory("not started: needs about " + gib(needed_bytes) + " (" + what + ") by the estimate, " +
                             to_string(device) + " has " + gib(available_bytes) + " available");
}

}  // namespace stepscope
