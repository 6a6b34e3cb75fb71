// Host-side TMA descriptors (CUtensorMap) for the Hopper kernels. cuTensorMapEncodeTiled is a
// driver function; it is reached through the runtime's driver entry-point query, so nothing
// links libcuda directly (cuda.h is included for its types only).
#pragma once

#include "kernels/flash_attention_args.h"

#include <cuda.h>

#include <cstdint>

namespace stepscope::kernels::flash {

// Whether a (batch, heads, rows, head_dim) view of 16-bit elements can be read or written by
// TMA: 16-byte aligned base, and strides of dimensions longer than 1 that are whole 16 bytes
// below 2^40 bytes.
bool tma_view_ok(const void* data, const Strides& strides, const AttentionShape& shape,
                 int64_t rows);

// A 4-D map (head_dim, rows, heads, batch) of a 16-bit view, copied as boxes of
// (64 columns, box_rows, 1, 1) with the 128-byte swizzle; out-of-bounds elements read as zero
// and are not written. Throws std::runtime_error naming the failing call.
CUtensorMap make_attention_tensor_map(ElementType type, const void* data, const Strides& strides,
                                      const AttentionShape& shape, int64_t rows, int box_rows);

}  // namespace stepscope::kernels::flash
