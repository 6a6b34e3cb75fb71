// What a GPU activity source (CUPTI, or a synthetic one in tests) reports, as plain data.
// Times are nanoseconds on the source's clock; durations are what the summaries use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::profiling {

struct KernelRecord {
  std::string name;  // mangled as the driver reports it
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t device_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;  // links the kernel to the API call that launched it
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int64_t duration_ns() const { return end_ns - start_ns; }
};

enum class MemoryOperation { copy_host_to_device, copy_device_to_host, copy_device_to_device, copy_other, set };

struct MemoryRecord {
  MemoryOperation operation = MemoryOperation::copy_other;
  uint64_t bytes = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t device_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// A CUDA runtime or driver call on a CPU thread (launches, copies, synchronisations).
struct ApiRecord {
  std::string name;  // "cudaLaunchKernel", "cuLaunchKernelEx", ...
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t thread_id = 0;
  uint32_t correlation_id = 0;
  bool driver = false;
};

// Ties an API call (and so the kernels and copies it caused) to the id that was pushed
// innermost on its thread when it ran (ActivitySource::push_correlation): the operator call
// that made it. CUPTI's external correlation.
struct CorrelationRecord {
  uint32_t correlation_id = 0;
  uint64_t external_id = 0;
};

struct ActivityBatch {
  std::vector<KernelRecord> kernels;
  std::vector<MemoryRecord> memory;
  std::vector<ApiRecord> api;
  std::vector<CorrelationRecord> correlations;
  uint64_t dropped_records = 0;  // records the source lost (buffers full)
  std::string error;             // the first problem the source hit while collecting
  bool empty() const { return kernels.empty() && memory.empty() && api.empty() && correlations.empty(); }
};

// A named CPU-side range (step, forward, attention scores, ...). Ranges nest per thread.
struct RangeRecord {
  uint64_t id = 0;         // unique, > 0
  uint64_t parent_id = 0;  // 0 for a top-level range
  std::string name;
  uint32_t thread_id = 0;
  int64_t start_ns = 0;  // CPU steady clock
  int64_t end_ns = 0;    // 0 while open
  int step = -1;         // the step it belongs to, -1 outside steps
  bool warmup = false;   // inside a warm-up step
};

}  // namespace stepscope::profiling
