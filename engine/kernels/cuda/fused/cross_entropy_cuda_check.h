// CUDA runtime calls for the cross-entropy row kernel's host code that throw std::runtime_error
// naming what failed. Plain C++ (no launches), so host-only sources compiled without nvcc may
// include it.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace stepscope::kernels::cross_entropy {

inline void check_cuda(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) {
    throw std::runtime_error("cross-entropy rows: " + what + " failed: " + cudaGetErrorString(status));
  }
}

}  // namespace stepscope::kernels::cross_entropy
