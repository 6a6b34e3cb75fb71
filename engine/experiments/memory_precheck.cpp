#include "experiments/memory_precheck.h"

#include "schema/value_format.h"

namespace stepscope {

namespace {

std::string gib(int64_t bytes) { return schema::significant(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0)) + " GiB"; }

}  // namespace

void refuse_if_clearly_too_large(int64_t needed_bytes, int64_t available_bytes, const std::string& device,
                                 const std::string& what) {
  if (available_bytes < 0) return;
  if (static_cast<double>(needed_bytes) <= kRefuseAboveAvailable * static_cast<double>(available_bytes)) return;
  throw EstimatedOutOfMemory("not started: needs about " + gib(needed_bytes) + " (" + what + ") by the estimate, " +
                             device + " has " + gib(available_bytes) + " available");
}

}  // namespace stepscope
