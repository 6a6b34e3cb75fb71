// What the allocation recorder captures, and what the memory timeline makes of it; plain
// data shared by the recorder (LibTorch side), the timeline logic, exporters and views.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::profiling {

// Who holds memory. Categories come from what the engine knows (its parameters, gradients,
// optimizer state and inputs, labelled when they are created) and from lifetimes: memory
// allocated in a forward pass and still alive when the backward pass starts was saved for
// backward (activation); other memory allocated in a step is temporary.
enum class MemoryCategory { parameter, gradient, optimizer_state, activation, temporary, input, other };

// One allocation (bytes > 0) or free (bytes < 0) through LibTorch's allocator.
struct AllocationEvent {
  int64_t time_ns = 0;
  uint64_t address = 0;
  int64_t bytes = 0;
  int64_t reserved_bytes = -1;  // the allocator's reserved (cached) total after it; -1 unknown
  int device = -1;              // -1: CPU
  int64_t stream = 0;           // the allocating thread's current stream on that device (0: default)
  std::string phase;            // innermost range when it happened ("forward", "softmax", ...); "" outside
  int step = -1;                // -1 outside steps
  bool warmup = false;
};

// The engine tells what a live allocation holds: applies to the allocation live at
// `address` at `time_ns`.
struct AllocationLabel {
  int64_t time_ns = 0;
  uint64_t address = 0;
  MemoryCategory category = MemoryCategory::other;
  // The labelled tensor's own storage bytes; the allocator's block at `address` may be larger
  // (the CUDA caching allocator rounds). -1: not given.
  int64_t tensor_bytes = -1;
};

// When a phase of a step began (phase boundaries for the timeline's bands and the
// activation rule: "backward" begins where the forward pass's saved tensors are needed).
struct PhaseMark {
  int64_t time_ns = 0;
  std::string phase;  // "forward", "backward", "optimizer step", "step end"
  int step = -1;
  bool warmup = false;
};

// Memory a device already had allocated when recording began (a cuBLAS workspace of an
// earlier run in the process, say): no event will name it, but it counts towards the total.
struct MemoryBaseline {
  int64_t time_ns = 0;
  int device = -1;  // -1: CPU
  int64_t bytes = 0;
};

struct AllocationLog {
  std::vector<MemoryBaseline> baselines;
  std::vector<AllocationEvent> events;
  std::vector<AllocationLabel> labels;
  std::vector<PhaseMark> phases;
  uint64_t dropped_events = 0;  // beyond the event limit: the record was cut
  int64_t event_limit = 0;
};

std::string to_string(MemoryCategory category);
std::vector<MemoryCategory> all_memory_categories();

}  // namespace stepscope::profiling
