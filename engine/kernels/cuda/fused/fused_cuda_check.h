// CUDA runtime calls of the fused kernels' launchers, a failure thrown as std::runtime_error
// "<what> failed: <CUDA's message>" (`what` names the kernels and the call, as
// flash_cuda_check.h does for the flash kernels). Plain C++ (no launches), so host-only sources
// compiled without nvcc may include it.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace stepscope::kernels::fused {

inline void check_cuda(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) throw std::runtime_error(what + " failed: " + cudaGetErrorString(status));
}

}  // namespace stepscope::kernels::fused
