// Device time of a launch on the current CUDA stream, for the GPU tests' bandwidth prints:
// untimed warm-ups, then CUDA events around the timed launches.
#pragma once

#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace stepscope::testing {

// Milliseconds per call of `launch(i)`, the mean of `iterations` calls after `warmups` (i counts
// from 0 over both).
inline double mean_launch_ms(const std::function<void(int)>& launch, int iterations, int warmups = 2) {
  const auto check = [](cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  };
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  int i = 0;
  for (; i < warmups; ++i) launch(i);
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  float ms = 0;
  try {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int n = 0; n < iterations; ++n, ++i) launch(i);
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / iterations;
}

}  // namespace stepscope::testing
