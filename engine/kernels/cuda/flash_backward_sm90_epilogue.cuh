// Hopper (sm_90a) flash-attention backward: the end of a key tile, dK and dV out of the consumers'
// accumulators through shared memory.
//
// Stored straight from the accumulators, each warp instruction wrote 4 bytes to each of 8 rows:
// 64 (128 tile) such stores a thread, half of every 32-byte sector unused. At 256 heads of 512
// rows (d128, H100, ncu) the CTA's end took about a third of the kernel's warp samples, most of
// them waiting on those stores. Staged as rows in shared memory (stmatrix, four 8x8 matrices a
// warp instruction), the tile leaves in whole 16-byte chunks, each warp writing whole rows.
//
// Staging layout: kBlockN rows of kHeadDim elements; 16-byte chunk c of row r at chunk c ^ (r % 8),
// so the 8 rows of one stmatrix matrix and the 8 chunks that a quarter-warp reads back fall in
// different banks.
#pragma once

#include "kernels/cuda/sm90_wgmma.cuh"

#include <cstdint>

namespace stepscope::kernels::flash {

// This warp's 16 rows (key_row0 + 0..15) of one accumulator (dK or dV: 16 key rows x kHeadDim,
// element 4 j + 2 h + e at row g + 8 h, column 8 j + 2 t + e), times `scale`, into the staging
// rows at `stage`. Fragment rows and columns are stmatrix's: lane 4 g + t holds row g, columns
// 2t, 2t + 1 of each 8x8 matrix.
template <typename E, int kHeadDim>
__device__ __forceinline__ void sm90_bwd_stage_rows(const float (&acc)[kHeadDim / 2], float scale,
                                                    uint32_t stage, int key_row0, int lane) {
  constexpr int kRowBytes = kHeadDim * 2;
  // Lane 8 i + r gives row r of matrix i: i & 1 picks the 8-row half, i >> 1 the chunk j or j + 1.
  const int i = lane / 8, r = lane % 8;
  const uint32_t row_addr = stage + (key_row0 + 8 * (i & 1) + r) * kRowBytes;
#pragma unroll
  for (int j = 0; j < kHeadDim / 8; j += 2) {
    const int chunk = j + (i >> 1);
    sm90::stmatrix_x4(row_addr + ((chunk ^ r) * 16),                             //
                      E::pack(acc[4 * j] * scale, acc[4 * j + 1] * scale),        // rows 0-7, chunk j
                      E::pack(acc[4 * j + 2] * scale, acc[4 * j + 3] * scale),    // rows 8-15, chunk j
                      E::pack(acc[4 * j + 4] * scale, acc[4 * j + 5] * scale),    // rows 0-7, chunk j + 1
                      E::pack(acc[4 * j + 6] * scale, acc[4 * j + 7] * scale));   // rows 8-15, chunk j + 1
  }
}

// The staged tile at `stage` (kBlockN rows from key n0) to `out` (rows row_stride elements
// apart), by the `kThreads` consumer threads (ctid 0 .. kThreads - 1) in 16-byte chunks: rows
// past seq_k and columns past head_dim (a head dim padded to the tile, a multiple of 8) are not
// written. The host takes this kernel only where the output allows 16-byte stores
// (allows_vector_access).
template <typename T, int kHeadDim, int kBlockN, int kThreads>
__device__ __forceinline__ void sm90_bwd_write_rows(uint32_t stage, T* out, int64_t row_stride, int n0,
                                                    int seq_k, int head_dim, int ctid) {
  constexpr int kChunks = kHeadDim / 8;  // 16-byte chunks a row
  static_assert((kBlockN * kChunks) % kThreads == 0, "whole passes over the tile");
#pragma unroll
  for (int pass = 0; pass < kBlockN * kChunks / kThreads; ++pass) {
    const int idx = pass * kThreads + ctid;
    const int row = idx / kChunks;
    const int chunk = idx % kChunks;
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(stage + row * (kHeadDim * 2) + ((chunk ^ (row % 8)) * 16)));
    if (n0 + row < seq_k && chunk * 8 < head_dim) {
      *reinterpret_cast<uint4*>(out + static_cast<int64_t>(n0 + row) * row_stride + chunk * 8) = v;
    }
  }
}

}  // namespace stepscope::kernels::flash
