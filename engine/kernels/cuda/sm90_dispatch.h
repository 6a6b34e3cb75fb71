// Host-side checks the forward and backward launchers make before taking a Hopper (sm_90a)
// kernel: whether the current device is compute capability 9.0, and whether a kernel's loaded
// image came from the sm_90a pass.
#pragma once

#include "kernels/cuda/flash_launch_utils.h"

#include <cuda_runtime.h>

#include <atomic>
#include <string>

namespace stepscope::kernels::flash {

// Whether the current device is compute capability 9.0 (the sm_90a code's target), queried
// once per device.
inline bool current_device_is_sm90() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  constexpr int kCachedDevices = 64;
  static std::atomic<int> cached[kCachedDevices];  // 0 unknown, 1 no, 2 yes
  if (device >= 0 && device < kCachedDevices) {
    const int known = cached[device].load(std::memory_order_relaxed);
    if (known != 0) return known == 2;
  }
  int major = 0, minor = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
             "cudaDeviceGetAttribute(compute capability major)");
  check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
             "cudaDeviceGetAttribute(compute capability minor)");
  const bool sm90 = major == 9 && minor == 0;
  if (device >= 0 && device < kCachedDevices) {
    cached[device].store(sm90 ? 2 : 1, std::memory_order_relaxed);
  }
  return sm90;
}

// Whether the image of `kKernel` (a Hopper kernel) loaded for this device came from the sm_90a
// pass: a build without sm_90a would run PTX of another target, whose kernel body is empty.
// Every cc 9.0 device loads the same image, so one answer per kernel. `name` is for errors.
template <auto kKernel>
bool sm90a_image_loaded(const char* name) {
  static const bool compiled = [name] {
    cudaFuncAttributes attributes{};
    check_cuda(cudaFuncGetAttributes(&attributes, kKernel),
               std::string("cudaFuncGetAttributes(") + name + ")");
    return attributes.ptxVersion == 90 && attributes.binaryVersion == 90;
  }();
  return compiled;
}

}  // namespace stepscope::kernels::flash
