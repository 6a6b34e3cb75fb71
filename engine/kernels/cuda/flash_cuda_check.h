// CUDA runtime calls for the flash kernels' host code that throw std::runtime_error naming what
// failed. Plain C++ (no launches), so host-only sources compiled without nvcc include it.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace stepscope::kernels::flash {

inline void check_cuda(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) {
    throw std::runtime_error("flash attention: " + what + " failed: " + cudaGetErrorString(status));
  }
}

inline int current_device() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

}  // namespace stepscope::kernels::flash
