#pragma once

#include <cstddef>
#include <memory>

#include "runners/allocator_history.h"

namespace stepscope {

// Starts recording on every CUDA device, keeping at most `max_entries` trace entries.
std::unique_ptr<AllocatorHistory> record_cuda_allocator_history(size_t max_entries);

}  // namespace stepscope
