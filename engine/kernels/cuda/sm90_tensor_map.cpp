// Host-side TMA descriptors for the Hopper kernels: the one lookup of cuTensorMapEncodeTiled,
// the TMA view check, and the tensor-map builders (see sm90_tensor_map.h).
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

int64_t element_size(ElementType type) { return type == ElementType::f32 ? 4 : 2; }

CUtensorMapDataType map_data_type(ElementType type) {
  switch (type) {
    case ElementType::f32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case ElementType::f16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case ElementType::bf16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  }
  throw std::runtime_error("flash attention: unknown element type");
}

bool stride_ok(int64_t bytes, int64_t extent) {
  return extent == 1 || (bytes % 16 == 0 && bytes > 0 && bytes < kMaxStrideBytes);
}

// A dimension of extent 1 is only ever at coordinate 0, so its stride is free: give it one the
// encoder accepts whatever the caller's view says (one contiguous row, rounded up to 16 bytes).
cuuint64_t map_stride(int64_t bytes, int64_t extent, int64_t row_bytes) {
  return static_cast<cuuint64_t>(extent == 1 ? (row_bytes + 15) / 16 * 16 : bytes);
}

}  // namespace

bool tma_view_ok(ElementType type, const void* data, const Strides& strides,
                 const AttentionShape& shape, int64_t rows) {
  const int64_t size = element_size(type);
  return reinterpret_cast<std::uintptr_t>(data) % 16 == 0 &&
         stride_ok(strides.row * size, rows) && stride_ok(strides.head * size, shape.heads) &&
         stride_ok(strides.batch * size, shape.batch);
}

CUtensorMap make_tensor_map(CUtensorMapDataType type, int rank, const void* data,
                            const cuuint64_t* dims, const cuuint64_t* byte_strides,
                            const cuuint32_t* box, CUtensorMapSwizzle swizzle,
                            const std::string& what) {
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  CUtensorMap map;
  const CUresult result = encode_tiled()(
      &map, type, static_cast<cuuint32_t>(rank), const_cast<void*>(data), dims, byte_strides,
      box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("flash attention: cuTensorMapEncodeTiled failed (CUresult " +
                             std::to_string(static_cast<int>(result)) + ") for " + what);
  }
  return map;
}

CUtensorMap make_attention_tensor_map(ElementType type, const void* data, const Strides& strides,
                                      const AttentionShape& shape, int64_t rows, TmaBox box) {
  if (!tma_view_ok(type, data, strides, shape, rows)) {
    throw std::runtime_error("flash attention: view is not 16-byte aligned for TMA");
  }
  const int64_t size = element_size(type);
  const int64_t row_bytes = shape.head_dim * size;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(shape.head_dim),
                              static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(shape.heads),
                              static_cast<cuuint64_t>(shape.batch)};
  // Byte strides of dimensions 1..3 (dimension 0 is contiguous).
  const cuuint64_t byte_strides[3] = {map_stride(strides.row * size, rows, row_bytes),
                                      map_stride(strides.head * size, shape.heads, row_bytes),
                                      map_stride(strides.batch * size, shape.batch, row_bytes)};
  const cuuint32_t box_dims[4] = {static_cast<cuuint32_t>(box.cols),
                                  static_cast<cuuint32_t>(box.rows), 1, 1};
  return make_tensor_map(map_data_type(type), 4, data, dims, byte_strides, box_dims,
                         box.swizzle,
                         "a " + std::to_string(rows) + "-row view, head_dim " +
                             std::to_string(shape.head_dim));
}

CUtensorMap make_dq_accum_map(float* data, int64_t head_dim, int64_t seq_q, int64_t bh,
                              int box_rows) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(seq_q),
                              static_cast<cuuint64_t>(bh)};
  const cuuint64_t byte_strides[2] = {static_cast<cuuint64_t>(head_dim * 4),
                                      static_cast<cuuint64_t>(seq_q * head_dim * 4)};
  const cuuint32_t box[3] = {32, static_cast<cuuint32_t>(box_rows), 1};
  return make_tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, data, dims, byte_strides, box,
                         CU_TENSOR_MAP_SWIZZLE_128B, "the dQ accumulator");
}

}  // namespace stepscope::kernels::flash
