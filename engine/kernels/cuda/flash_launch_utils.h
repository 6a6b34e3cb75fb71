// Host-side helpers shared by the forward and backward launchers: argument validation,
// building kernel views, and CUDA calls that throw std::runtime_error naming what failed.
#pragma once

#include "kernels/cuda/flash_cuda_check.h"
#include "kernels/cuda/flash_grid_order.h"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/flash_attention_args.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace stepscope::kernels::flash {

inline void throw_if_shape_unsupported(const AttentionShape& shape) {
  const std::string problem = flash_shape_problem(shape);
  if (!problem.empty()) throw std::runtime_error(problem);
}

inline std::size_t element_bytes(ElementType type) {
  return type == ElementType::f32 ? 4 : 2;
}

// Checks one (batch, heads, rows, head_dim) view: present, non-negative strides, and a
// largest element offset that fits in int64 (the kernels' address arithmetic).
inline void check_view(const char* name, const void* data, const Strides& strides,
                       const AttentionShape& shape, int64_t rows) {
  if (data == nullptr) throw std::runtime_error(std::string("flash attention: ") + name + " is null");
  if (strides.batch < 0 || strides.head < 0 || strides.row < 0) {
    throw std::runtime_error(std::string("flash attention: ") + name +
                             " has a negative stride, which the flash kernels do not take");
  }
  int64_t last = shape.head_dim - 1;
  int64_t term = 0;
  const bool fits = !__builtin_mul_overflow(shape.batch - 1, strides.batch, &term) &&
                    !__builtin_add_overflow(last, term, &last) &&
                    !__builtin_mul_overflow(shape.heads - 1, strides.head, &term) &&
                    !__builtin_add_overflow(last, term, &last) &&
                    !__builtin_mul_overflow(rows - 1, strides.row, &term) &&
                    !__builtin_add_overflow(last, term, &last) &&
                    last <= INT64_MAX / 8;
  if (!fits) {
    throw std::runtime_error(std::string("flash attention: ") + name +
                             "'s strides address elements beyond 64-bit offsets");
  }
}

// Whether a view allows 16-byte accesses: aligned base and strides that are whole 16 bytes.
inline bool allows_vector_access(const void* data, const Strides& strides, std::size_t bytes) {
  const int64_t per_vector = static_cast<int64_t>(16 / bytes);
  return reinterpret_cast<std::uintptr_t>(data) % 16 == 0 && strides.batch % per_vector == 0 &&
         strides.head % per_vector == 0 && strides.row % per_vector == 0;
}

inline TensorView make_view(const void* data, const Strides& strides) {
  TensorView view;
  view.data = const_cast<void*>(data);  // inputs are only read through their views
  view.batch_stride = strides.batch;
  view.head_stride = strides.head;
  view.row_stride = strides.row;
  return view;
}

// One attribute of `device`, queried once per device: the launchers ask before every launch.
template <cudaDeviceAttr kAttribute>
int cached_device_attribute(int device, const char* what) {
  constexpr int kCachedDevices = 64;
  static std::atomic<int> cached[kCachedDevices];  // 0: unknown
  const bool cacheable = device >= 0 && device < kCachedDevices;
  int value = cacheable ? cached[device].load(std::memory_order_relaxed) : 0;
  if (value == 0) {
    check_cuda(cudaDeviceGetAttribute(&value, kAttribute, device),
               std::string("cudaDeviceGetAttribute(") + what + ")");
    if (cacheable) cached[device].store(value, std::memory_order_relaxed);
  }
  return value;
}

// The kernels use mma.sync/ldmatrix/cp.async (sm_80+); refuse older devices up front. Returns
// the device's multiprocessor count (the grids' head groups need it).
inline int check_device_supported(std::size_t largest_smem) {
  const int device = current_device();
  const int major = cached_device_attribute<cudaDevAttrComputeCapabilityMajor>(device, "compute capability");
  const int optin =
      cached_device_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>(device, "max shared memory per block");
  const int sms = cached_device_attribute<cudaDevAttrMultiProcessorCount>(device, "multiprocessor count");
  if (major < 8) {
    throw std::runtime_error("flash attention: the flash kernels need compute capability 8.0 "
                             "or newer (device has " + std::to_string(major) + ".x)");
  }
  if (static_cast<std::size_t>(optin) < largest_smem) {
    throw std::runtime_error("flash attention: kernel needs " + std::to_string(largest_smem) +
                             " bytes of shared memory per block, device allows " +
                             std::to_string(optin));
  }
  return sms;
}

// The device checked for `smem` bytes of shared memory per block, the heads per group of the
// Hopper backward's grid order (flash_grid_order.h; one CTA an SM).
inline int backward_grid_head_group(int key_tiles, const AttentionShape& shape, std::size_t smem) {
  return head_group_cached(GridPass::backward, key_tiles, static_cast<int>(shape.batch * shape.heads),
                           check_device_supported(smem), shape.causal);
}

// The Hopper forward's, for a grid of which `slots` CTAs run at once.
inline int forward_grid_head_group(int row_tiles, const AttentionShape& shape, int slots) {
  return head_group_cached(GridPass::forward, row_tiles, static_cast<int>(shape.batch * shape.heads), slots,
                           shape.causal);
}

// Launches `kernel` with `smem` dynamic shared memory, raising the per-kernel limit first when
// above the default 48 KB, and checks the launch.
template <typename Params>
void launch_kernel(void (*kernel)(Params), dim3 blocks, unsigned threads, std::size_t smem,
                   cudaStream_t stream, const Params& params, const char* name) {
  if (smem > 48 * 1024) {
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)),
               std::string("cudaFuncSetAttribute(max dynamic shared memory) for ") + name);
  }
  kernel<<<blocks, threads, smem, stream>>>(params);
  check_cuda(cudaGetLastError(), std::string("launch of ") + name);
}

}  // namespace stepscope::kernels::flash
