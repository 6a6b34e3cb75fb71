// Current and peak bytes allocated through LibTorch's allocators, observed through
// c10's memory-reporting hook. Works for the CPU allocator, which keeps no
// statistics of its own.
#pragma once

#include <cstdint>
#include <memory>

#include <c10/util/ThreadLocalDebugInfo.h>

namespace stepscope {

class AllocationTally;

// Installs the hook on the constructing thread (autograd's worker threads inherit it)
// for its lifetime. Only allocations made while it is installed are counted.
class AllocationMeter {
 public:
  AllocationMeter();
  ~AllocationMeter();
  AllocationMeter(const AllocationMeter&) = delete;
  AllocationMeter& operator=(const AllocationMeter&) = delete;

  int64_t current_bytes() const;
  int64_t peak_bytes() const;
  // Starts a new peak window at the current level.
  void reset_peak();

 private:
  std::shared_ptr<AllocationTally> tally_;
  c10::DebugInfoGuard guard_;
};

}  // namespace stepscope
