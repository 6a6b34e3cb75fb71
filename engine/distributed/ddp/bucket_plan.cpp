#include "distributed/ddp/bucket_plan.h"

#include <stdexcept>
#include <string>

#include "core/config_error.h"

namespace stepscope::distributed {

std::vector<Bucket> plan_buckets(const std::vector<ParameterSize>& parameters, int64_t bucket_bytes) {
  if (bucket_bytes < 1) {
    throw ConfigError("bucket size must be at least 1 byte (got " + std::to_string(bucket_bytes) + ")", "bucket_mb");
  }
  std::vector<Bucket> buckets;
  Bucket current;
  const auto close = [&] {
    if (!current.parameters.empty()) buckets.push_back(std::move(current));
    current = Bucket();
  };
  for (auto it = parameters.rbegin(); it != parameters.rend(); ++it) {
    if (it->numel < 0 || it->element_bytes < 1) {
      throw std::invalid_argument("parameter " + std::to_string(it->index) + " has " + std::to_string(it->numel) +
                                  " elements of " + std::to_string(it->element_bytes) + " bytes");
    }
    const int64_t bytes = it->numel * it->element_bytes;
    // Close before overflowing, so only a parameter alone can exceed the limit.
    if (!current.parameters.empty() && current.bytes + bytes > bucket_bytes) close();
    current.parameters.push_back(it->index);
    current.offsets.push_back(current.numel);
    current.numel += it->numel;
    current.bytes += bytes;
    if (current.bytes >= bucket_bytes) close();
  }
  close();
  return buckets;
}

}  // namespace stepscope::distributed
