// The CUDA caching allocator's own record of its allocations and frees (LibTorch 2.x),
// written as the pickle that torch.cuda.memory._dump_snapshot writes and memory_viz opens.
#pragma once

#include <string>

namespace stepscope {

// Records while it lives; recording stops (and its history is dropped) with it.
class AllocatorHistory {
 public:
  virtual ~AllocatorHistory() = default;
  // Segments, blocks and the trace of allocator events so far, pickled.
  virtual std::string snapshot_pickle() = 0;
};

}  // namespace stepscope
