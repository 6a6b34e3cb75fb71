#include "profiling/duration_stats.h"

#include <algorithm>
#include <cmath>

namespace stepscope::profiling {

void DurationStats::add(int64_t duration_ns) {
  ++count_;
  total_ += duration_ns;
  min_ = count_ == 1 ? duration_ns : std::min(min_, duration_ns);
  max_ = count_ == 1 ? duration_ns : std::max(max_, duration_ns);
  const double delta = static_cast<double>(duration_ns) - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (static_cast<double>(duration_ns) - mean_);
  if (samples_.size() < sample_cap_) {
    samples_.push_back(duration_ns);
    return;
  }
  // Reservoir sampling: the n-th value replaces a kept one with probability cap / n.
  rng_state_ ^= rng_state_ << 13;
  rng_state_ ^= rng_state_ >> 7;
  rng_state_ ^= rng_state_ << 17;
  const uint64_t slot = rng_state_ % static_cast<uint64_t>(count_);
  if (slot < sample_cap_) samples_[slot] = duration_ns;
}

double DurationStats::stddev() const {
  return count_ > 1 ? std::sqrt(m2_ / static_cast<double>(count_ - 1)) : 0.0;
}

double DurationStats::median() const {
  if (samples_.empty()) return 0.0;
  std::vector<int64_t> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  const size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? static_cast<double>(sorted[mid])
                                : 0.5 * (static_cast<double>(sorted[mid - 1]) + static_cast<double>(sorted[mid]));
}

}  // namespace stepscope::profiling
