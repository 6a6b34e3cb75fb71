// memory_viz snapshots from the caching allocator's history (LibTorch 2.x).
#include <optional>
#include <string>

#include <torch/csrc/cuda/memory_snapshot.h>

#include "runners/cuda/cuda_allocator_history.h"

namespace stepscope {

namespace {

class CudaAllocatorHistory final : public AllocatorHistory {
 public:
  explicit CudaAllocatorHistory(size_t max_entries) {
    // "all" keeps the trace of every alloc and free (the timeline memory_viz draws); "state"
    // would keep only the live blocks, with no trace entries. Stacks: in a process without
    // Python, "python" gathers none, which keeps recording cheap; the engine's own timeline
    // carries the range of each allocation instead.
    torch::cuda::_record_memory_history(std::optional<std::string>("all"), std::optional<std::string>("all"),
                                        "python", max_entries, /*clearHistory=*/true);
  }
  ~CudaAllocatorHistory() override {
    try {
      torch::cuda::_record_memory_history(std::optional<std::string>(), std::optional<std::string>(), "python", 0,
                                          /*clearHistory=*/true);
    } catch (...) {
      // Nothing to report from a destructor; the next recording clears the history anyway.
    }
  }
  std::string snapshot_pickle() override { return torch::cuda::_memory_snapshot_pickled(); }
};

}  // namespace

std::unique_ptr<AllocatorHistory> record_cuda_allocator_history(size_t max_entries) {
  return std::make_unique<CudaAllocatorHistory>(max_entries);
}

}  // namespace stepscope
