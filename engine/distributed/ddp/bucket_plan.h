// Which gradients travel together in the bucketed DDP variant, decided from sizes alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stepscope::distributed {

struct ParameterSize {
  size_t index = 0;           // position in the registration order
  int64_t numel = 0;          // elements
  int64_t element_bytes = 4;  // bytes per element
};

struct Bucket {
  std::vector<size_t> parameters;  // their `index`es, in the bucket's order
  std::vector<int64_t> offsets;    // element offset of each in the bucket's flat buffer
  int64_t numel = 0;               // elements in the buffer
  int64_t bytes = 0;
};

// Buckets in reverse registration order (backward produces the last parameters' gradients
// first, as PyTorch's reducer assumes), each of at most `bucket_bytes`; a parameter larger than
// that gets a bucket of its own. `parameters` is in registration order. Offsets count elements
// of one type: the caller keeps a bucket's parameters of one element type.
// Throws ConfigError (field "bucket_mb") for a limit below 1 byte, std::invalid_argument naming
// the parameter for a negative size or an element size below 1.
std::vector<Bucket> plan_buckets(const std::vector<ParameterSize>& parameters, int64_t bucket_bytes);

}  // namespace stepscope::distributed
