// Records every allocation and free that LibTorch's allocators report (the CPU allocator and
// the CUDA caching allocator both report through c10's memory-reporting hook), with time,
// size, address, reserved total, the range it happened in, and the engine's labels.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include <c10/util/ThreadLocalDebugInfo.h>

#include "profiling/memory_events.h"

namespace stepscope::profiling {

class AllocationLogSink;

// Installed on the constructing thread for its lifetime (autograd's threads inherit it).
// A hook installed before it (such as an AllocationMeter) keeps receiving every report.
class AllocationRecorder {
 public:
  explicit AllocationRecorder(int64_t event_limit = 1000000);
  ~AllocationRecorder();
  AllocationRecorder(const AllocationRecorder&) = delete;
  AllocationRecorder& operator=(const AllocationRecorder&) = delete;

  // The step that following allocations belong to.
  void set_step(int step, bool warmup);
  void mark_phase(const char* phase);
  // `tensor_bytes`: the labelled tensor's storage size, so the timeline can tell the
  // allocator's rounding from the tensors (-1: unknown).
  void label(const void* address, MemoryCategory category, int64_t tensor_bytes = -1);
  // What `device` had allocated before this recorder saw anything.
  void note_baseline(int device, int64_t bytes);
  // Everything recorded so far.
  AllocationLog log() const;

 private:
  std::shared_ptr<AllocationLogSink> sink_;
  c10::DebugInfoGuard guard_;
};

int64_t steady_clock_ns();

}  // namespace stepscope::profiling
