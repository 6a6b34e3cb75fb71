// Host-side TMA descriptors (CUtensorMap) for the Hopper forward and backward kernels.
// cuTensorMapEncodeTiled is a driver function; it is reached through the runtime's driver
// entry-point query (looked up once per process), so nothing links libcuda directly (cuda.h is
// included for its types only).
#pragma once

#include "kernels/flash_attention_args.h"

#include <cuda.h>

#include <cstdint>
#include <string>

namespace stepscope::kernels::flash {

// Whether a (batch, heads, rows, head_dim) view of `type` elements can be read or written by
// TMA: 16-byte aligned base, and strides of dimensions longer than 1 that are whole 16 bytes,
// positive and below 2^40 bytes.
bool tma_view_ok(ElementType type, const void* data, const Strides& strides,
                 const AttentionShape& shape, int64_t rows);

// The box a map copies per TMA instruction: (cols elements of the innermost dimension, rows
// rows, 1, ...) with the shared-memory swizzle of the kernel's buffers.
struct TmaBox {
  int cols = 64;
  int rows = 64;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
};

// A tiled map of `rank` dimensions (innermost first): extents `dims`, byte strides of dimensions
// 1..rank-1 `byte_strides`, boxes of `box` elements, no interleave, L2 promotion of 256 bytes,
// out-of-bounds elements read as zero and not written. Throws std::runtime_error naming `what`
// when the driver refuses the map.
CUtensorMap make_tensor_map(CUtensorMapDataType type, int rank, const void* data,
                            const cuuint64_t* dims, const cuuint64_t* byte_strides,
                            const cuuint32_t* box, CUtensorMapSwizzle swizzle,
                            const std::string& what);

// A 4-D map (head_dim, rows, heads, batch) of a view that passes tma_view_ok, copied as boxes of
// (box.cols, box.rows, 1, 1). Throws std::runtime_error if the view does not pass or the driver
// refuses the map.
CUtensorMap make_attention_tensor_map(ElementType type, const void* data, const Strides& strides,
                                      const AttentionShape& shape, int64_t rows, TmaBox box);

// The backward's fp32 dQ accumulator (batch*heads, seq_q, head_dim), contiguous, as a 3-D map
// (head_dim, seq_q, batch*heads) reduced into in boxes of (32 columns, box_rows, 1) with the
// 128-byte swizzle.
CUtensorMap make_dq_accum_map(float* data, int64_t head_dim, int64_t seq_q, int64_t bh,
                              int box_rows);

}  // namespace stepscope::kernels::flash
