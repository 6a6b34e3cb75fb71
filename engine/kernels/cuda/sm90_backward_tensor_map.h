// Host-side TMA descriptors for the Hopper backward (header-only). Like the forward's
// sm90_tensor_map.*, it reaches cuTensorMapEncodeTiled through the runtime's driver entry-point
// query (no libcuda link), but it also takes the box width and swizzle, which the backward
// needs (K uses 32-column boxes with 64-byte swizzle for the 64 head-dim tile). The two can be
// merged into one helper.
#pragma once

#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/flash_attention_args.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace stepscope::kernels::flash::sm90bwd {

using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                   const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                   const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                   CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

inline EncodeTiledFn encode_tiled_fn() {
  static const EncodeTiledFn fn = [] {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    check_cuda(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000,
                                                cudaEnableDefault, &found),
               "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
    if (found != cudaDriverEntryPointSuccess || ptr == nullptr) {
      throw std::runtime_error("flash attention: the driver has no cuTensorMapEncodeTiled");
    }
    return reinterpret_cast<EncodeTiledFn>(ptr);
  }();
  return fn;
}

// Whether TMA can read a (batch, heads, rows, head_dim) view of 16-bit elements: 16-byte
// aligned base and, for every dimension longer than 1, a stride of whole 16 bytes below 2^40.
inline bool tma_view_allowed(const void* data, const Strides& s, const AttentionShape& shape,
                             int64_t rows) {
  auto ok = [](int64_t elements, int64_t extent) {
    const int64_t bytes = elements * 2;
    return extent == 1 || (bytes % 16 == 0 && bytes > 0 && bytes < (int64_t{1} << 40));
  };
  return reinterpret_cast<std::uintptr_t>(data) % 16 == 0 && ok(s.row, rows) &&
         ok(s.head, shape.heads) && ok(s.batch, shape.batch);
}

// A 4-D map (head_dim, rows, heads, batch) read in boxes of (box_cols, box_rows, 1, 1).
// Out-of-range rows and columns read as zero.
inline CUtensorMap make_tensor_map(ElementType type, const void* data, const Strides& s,
                                   const AttentionShape& shape, int64_t rows, int box_cols,
                                   int box_rows, CUtensorMapSwizzle swizzle) {
  // A dimension of extent 1 is only read at coordinate 0; give it a stride the encoder takes.
  auto stride_bytes = [](int64_t elements, int64_t extent) {
    return static_cast<cuuint64_t>(extent == 1 ? 16 : elements * 2);
  };
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(shape.head_dim),
                              static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(shape.heads),
                              static_cast<cuuint64_t>(shape.batch)};
  const cuuint64_t strides[3] = {stride_bytes(s.row, rows), stride_bytes(s.head, shape.heads),
                                 stride_bytes(s.batch, shape.batch)};
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows),
                             1, 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  CUtensorMap map;
  const CUresult result = encode_tiled_fn()(
      &map, type == ElementType::f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
      4, const_cast<void*>(data), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("flash attention: cuTensorMapEncodeTiled failed (CUresult " +
                             std::to_string(static_cast<int>(result)) + ")");
  }
  return map;
}

// The fp32 dQ accumulator (batch*heads, seq_q, head_dim), contiguous, as a 3-D map reduced into
// in boxes of (32 columns, box_rows, 1) with the 128-byte swizzle.
inline CUtensorMap make_dq_accum_map(float* data, int64_t head_dim, int64_t seq_q, int64_t bh,
                                     int box_rows) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(seq_q),
                              static_cast<cuuint64_t>(bh)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(head_dim * 4),
                                 static_cast<cuuint64_t>(seq_q * head_dim * 4)};
  const cuuint32_t box[3] = {32, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  CUtensorMap map;
  const CUresult result = encode_tiled_fn()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, data, dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("flash attention: cuTensorMapEncodeTiled (dQ accumulator) failed "
                             "(CUresult " + std::to_string(static_cast<int>(result)) + ")");
  }
  return map;
}

}  // namespace stepscope::kernels::flash::sm90bwd
