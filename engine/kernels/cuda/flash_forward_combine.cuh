// The second kernel of a key-split forward (flash_key_splits.h): each query row's chunks, each
// with its normalised O and lse, merge into O = sum_s w_s O_s / sum_s w_s with w_s = exp(lse_s -
// max lse), and lse = max lse + log sum_s w_s (the online softmax's rescaling, once per chunk).
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"

#include <cmath>

namespace stepscope::kernels::flash {

constexpr int kCombineThreads = 256;

// One thread per (query row, 4 columns), grid-strided; the thread of columns 0-3 writes lse.
template <typename T>
__global__ void __launch_bounds__(kCombineThreads) flash_forward_combine_kernel(const ForwardParams p) {
  const int64_t rows = p.rows;
  const int row_floats = (p.head_dim + 3) / 4 * 4;  // partial_row_floats
  const int quads = row_floats / 4;
  const int bh_rows = p.seq_q;
  const int64_t items = rows * quads;
  for (int64_t item = static_cast<int64_t>(blockIdx.x) * kCombineThreads + threadIdx.x; item < items;
       item += static_cast<int64_t>(gridDim.x) * kCombineThreads) {
    const int64_t flat_row = item / quads;
    const int quad = static_cast<int>(item - flat_row * quads);
    const int bh = static_cast<int>(flat_row / bh_rows);
    const int row = static_cast<int>(flat_row - static_cast<int64_t>(bh) * bh_rows);
    // The chunks this row's query tile walked; the grid's others returned without writing.
    const int key_end = p.causal ? min(p.seq_k, (row / p.block_m + 1) * p.block_m) : p.seq_k;
    const int walked = ((key_end + p.block_n - 1) / p.block_n + p.split_tiles - 1) / p.split_tiles;
    float top = -INFINITY;
    for (int s = 0; s < walked; ++s) top = fmaxf(top, p.partial_lse[s * rows + flat_row]);
    float total = 0.f;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int s = 0; s < walked; ++s) {
      const float lse = p.partial_lse[s * rows + flat_row];
      if (lse == -INFINITY) continue;  // no key of this chunk is visible to the row
      const float w = expf(lse - top);
      const float4 o = *reinterpret_cast<const float4*>(p.partial_o + (s * rows + flat_row) * row_floats + quad * 4);
      total += w;
      acc.x = fmaf(w, o.x, acc.x);
      acc.y = fmaf(w, o.y, acc.y);
      acc.z = fmaf(w, o.z, acc.z);
      acc.w = fmaf(w, o.w, acc.w);
    }
    const float inv = total > 0.f ? 1.f / total : 0.f;
    T* out = p.o.head<T>(bh / p.heads, bh % p.heads) + static_cast<int64_t>(row) * p.o.row_stride;
    const float values[4] = {acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = quad * 4 + i;
      if (c < p.head_dim) out[c] = element_from_float<T>(values[i]);
    }
    if (quad == 0) p.lse[flat_row] = total > 0.f ? top + logf(total) : -INFINITY;
  }
}

}  // namespace stepscope::kernels::flash
