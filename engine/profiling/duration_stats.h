// Running statistics of durations in bounded memory: exact count, total, min, max, mean and
// standard deviation (Welford), and a median that is exact up to `sample_cap` samples and
// taken from a uniform reservoir sample beyond.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stepscope::profiling {

class DurationStats {
 public:
  explicit DurationStats(size_t sample_cap = 4096) : sample_cap_(sample_cap) {}
  void add(int64_t duration_ns);

  int64_t count() const { return count_; }
  int64_t total() const { return total_; }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }
  double mean() const { return mean_; }
  double stddev() const;  // sample (n - 1); 0 for fewer than two
  double median() const;

 private:
  size_t sample_cap_;
  int64_t count_ = 0, total_ = 0, min_ = 0, max_ = 0;
  double mean_ = 0, m2_ = 0;
  std::vector<int64_t> samples_;
  uint64_t rng_state_ = 0x9E3779B97F4A7C15ull;  // deterministic, so repeated runs agree
};

}  // namespace stepscope::profiling
