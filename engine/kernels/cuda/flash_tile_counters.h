// The persistent kernels' tile counters: two words per device and stream, zeroed once when first
// handed out. A kernel that takes tiles from one leaves it zero as it ends (its last CTA out
// resets it: release_tile_counter in flash_forward_sm90_persistent.cuh), so a launch needs no
// memset before it: on a stream of short kernels a memset is one more operation, with its own gap.
#pragma once

#include <cuda_runtime.h>

namespace stepscope::kernels::flash {

// Words of one counter: [0] the tiles taken after the first wave, [1] the CTAs that have made
// their last claim.
constexpr int kTileCounterWords = 2;

// The current device's counter for `stream`, zero once the work queued on `stream` so far is
// done. Null, so that the caller launches one CTA a tile instead, while `stream` is being
// captured into a graph (a graph may replay on any stream) or when the device has no memory
// left for the two words.
unsigned int* stream_tile_counter(cudaStream_t stream);

}  // namespace stepscope::kernels::flash
