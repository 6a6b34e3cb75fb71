#include "kernels/cuda/sm90_tensor_map.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace stepscope::kernels::flash {

namespace {

// The signature of cuTensorMapEncodeTiled (CUDA 12.0 ABI), declared here so no driver header
// beyond cuda.h's types is needed.
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

constexpr int64_t kMaxStrideBytes = int64_t{1} << 40;

EncodeTiled load_encode_tiled() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t status =
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                       &found);
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("flash attention: cudaGetDriverEntryPointByVersion("
                                         "cuTensorMapEncodeTiled) failed: ") +
                             cudaGetErrorString(status));
  }
  if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
    throw std::runtime_error("flash attention: the driver has no cuTensorMapEncodeTiled "
                             "(query result " + std::to_string(static_cast<int>(found)) + ")");
  }
  return reinterpret_cast<EncodeTiled>(fn);
}

EncodeTiled encode_tiled() {
  static const EncodeTiled fn = load_encode_tiled();  // thread-safe, once per process
  return fn;
}

bool stride_ok(int64_t elements, int64_t extent) {
  const int64_t bytes = elements * 2;
  return extent == 1 || (bytes % 16 == 0 && bytes < kMaxStrideBytes);
}

// A dimension of extent 1 is only ever at coordinate 0, so its stride is free: give it one the
// encoder accepts (the contiguous row's bytes) whatever the caller's view says.
cuuint64_t map_stride(int64_t elements, int64_t extent, int64_t head_dim) {
  return static_cast<cuuint64_t>(extent == 1 ? head_dim * 2 : elements * 2);
}

}  // namespace

bool tma_view_ok(const void* data, const Strides& strides, const AttentionShape& shape,
                 int64_t rows) {
  return reinterpret_cast<std::uintptr_t>(data) % 16 == 0 && shape.head_dim % 8 == 0 &&
         stride_ok(strides.row, rows) && stride_ok(strides.head, shape.heads) &&
         stride_ok(strides.batch, shape.batch);
}

CUtensorMap make_attention_tensor_map(ElementType type, const void* data, const Strides& strides,
                                      const AttentionShape& shape, int64_t rows, int box_rows) {
  if (type == ElementType::f32) {
    throw std::runtime_error("flash attention: TMA maps are built for 16-bit types only");
  }
  if (!tma_view_ok(data, strides, shape, rows)) {
    throw std::runtime_error("flash attention: view is not 16-byte aligned for TMA");
  }
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(shape.head_dim),
                              static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(shape.heads),
                              static_cast<cuuint64_t>(shape.batch)};
  // Byte strides of dimensions 1..3 (dimension 0 is contiguous).
  const cuuint64_t byte_strides[3] = {map_stride(strides.row, rows, shape.head_dim),
                                      map_stride(strides.head, shape.heads, shape.head_dim),
                                      map_stride(strides.batch, shape.batch, shape.head_dim)};
  const cuuint32_t box[4] = {64, static_cast<cuuint32_t>(box_rows), 1, 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  CUtensorMap map;
  const CUresult result = encode_tiled()(
      &map, type == ElementType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                      : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      4, const_cast<void*>(data), dims, byte_strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("flash attention: cuTensorMapEncodeTiled failed (CUresult " +
                             std::to_string(static_cast<int>(result)) + ") for a " +
                             std::to_string(rows) + "-row view, head_dim " +
                             std::to_string(shape.head_dim));
  }
  return map;
}

}  // namespace stepscope::kernels::flash
