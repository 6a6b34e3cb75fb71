#include "distributed/ddp/bucket_arrivals.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace stepscope::distributed {

BucketArrivals::BucketArrivals(std::vector<size_t> bucket_of)
    : bucket_of_(std::move(bucket_of)), parameter_arrived_(bucket_of_.size(), false) {
  const size_t buckets = bucket_of_.empty() ? 0 : *std::max_element(bucket_of_.begin(), bucket_of_.end()) + 1;
  expected_.assign(buckets, 0);
  arrived_.assign(buckets, 0);
  for (size_t b : bucket_of_) ++expected_[b];
}

std::vector<size_t> BucketArrivals::arrive(size_t parameter) {
  if (parameter_arrived_.at(parameter)) {
    throw std::runtime_error("bucketed DDP: parameter " + std::to_string(parameter) +
                             " got a second gradient before finish() (call begin_step() and finish() each step)");
  }
  parameter_arrived_[parameter] = true;
  ++arrived_[bucket_of_[parameter]];
  std::vector<size_t> ready;
  while (next_ < expected_.size() && arrived_[next_] == expected_[next_]) ready.push_back(next_++);
  return ready;
}

size_t BucketArrivals::first_missing() const {
  return static_cast<size_t>(std::find(parameter_arrived_.begin(), parameter_arrived_.end(), false) -
                             parameter_arrived_.begin());
}

void BucketArrivals::reset() {
  std::fill(arrived_.begin(), arrived_.end(), 0);
  parameter_arrived_.assign(parameter_arrived_.size(), false);
  next_ = 0;
}

}  // namespace stepscope::distributed
