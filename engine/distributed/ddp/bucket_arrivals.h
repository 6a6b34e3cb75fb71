// Which buckets of the bucketed DDP variants are complete and may start their collective:
// every rank must start the same collectives in the same order, so a complete bucket waits
// for those before it, as PyTorch's reducer does. Shared by the bucketed syncs (buckets of their
// own, or slices of a model's gradient buffer); no tensors, no locking (callers hold theirs).
#pragma once

#include <cstddef>
#include <vector>

namespace stepscope::distributed {

class BucketArrivals {
 public:
  // bucket_of[i]: parameter i's bucket; buckets are numbered in the order they start.
  explicit BucketArrivals(std::vector<size_t> bucket_of);
  // Parameter i's gradient is in its bucket. Returns the buckets that may start now, in order.
  // Throws std::runtime_error for a second gradient of i before reset().
  std::vector<size_t> arrive(size_t parameter);
  // The first parameter without a gradient, or the parameter count when every one has one.
  size_t first_missing() const;
  void reset();

 private:
  std::vector<size_t> bucket_of_;
  std::vector<size_t> expected_, arrived_;  // per bucket
  std::vector<bool> parameter_arrived_;
  size_t next_ = 0;  // the first bucket not started
};

}  // namespace stepscope::distributed
