#include "kernels/cuda/flash_tile_counters.h"

#include "kernels/cuda/flash_cuda_check.h"

#include <map>
#include <mutex>
#include <utility>

namespace stepscope::kernels::flash {

unsigned int* stream_tile_counter(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing");
  if (capture != cudaStreamCaptureStatusNone) return nullptr;
  // Keyed by the stream's unique id, not its handle: handles are reused after a stream is
  // destroyed, and cudaStreamPerThread names a different stream on every thread.
  unsigned long long stream_id = 0;
  check_cuda(cudaStreamGetId(stream, &stream_id), "cudaStreamGetId");
  const std::pair<int, unsigned long long> key{current_device(), stream_id};

  static std::mutex mutex;
  static std::map<std::pair<int, unsigned long long>, unsigned int*> counters;  // kept for the process
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto found = counters.find(key); found != counters.end()) return found->second;
  void* words = nullptr;
  if (cudaMalloc(&words, kTileCounterWords * sizeof(unsigned int)) != cudaSuccess) {
    (void)cudaGetLastError();  // an out-of-memory here is not the caller's error
    return nullptr;
  }
  // Queued on `stream`, so it lands before any kernel the caller launches there next.
  const cudaError_t zeroed = cudaMemsetAsync(words, 0, kTileCounterWords * sizeof(unsigned int), stream);
  if (zeroed != cudaSuccess) {
    cudaFree(words);
    check_cuda(zeroed, "cudaMemsetAsync(a tile counter)");
  }
  auto* counter = static_cast<unsigned int*>(words);
  counters.emplace(key, counter);
  return counter;
}

}  // namespace stepscope::kernels::flash
