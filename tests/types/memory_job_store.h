// A JobStore in memory, shared by threads that play the ranks of a job.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "distributed/job_store.h"

namespace stepscope::testing {

class MemoryJobStore final : public distributed::JobStore {
 public:
  void set(const std::string& key, const std::string& value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    values_[key] = value;
  }
  std::optional<std::string> get_if_set(const std::string& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }
  int64_t add(const std::string& key, int64_t delta) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const int64_t sum = (counters_[key] += delta);
    return sum;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> values_;
  std::map<std::string, int64_t> counters_;
};

}  // namespace stepscope::testing
