// The warp-level products of the tensor-core flash kernels, per input type, so that one forward
// and one backward kernel body serve every type: fp16/bf16 run mma.sync m16n8k16 with fp32
// accumulation; fp32 runs three TF32 m16n8k8 per product (flash_tf32x3.cuh), which also takes
// the fresh sums its truncating accumulation needs.
//
// Shapes are per warp: 16 rows by n8 tiles, the accumulator layout of mma.sync (row g, columns
// 2t and 2t+1; rows g+8), g = lane / 4, t = lane % 4.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_tf32x3.cuh"

#include <cstdint>

namespace stepscope::kernels::flash {

// fp16 and bf16.
template <typename T>
struct MmaOps {
  using E = MmaElement<T>;

  // acc (16 x kTiles*8) += A B^T: A is 16 rows of kDim elements at `a_rows`, B kTiles*8 rows of
  // kDim at `b_rows`, both row-major in shared memory. kUnrollK of the kDim/16 steps unrolled.
  template <int kDim, int kTiles, int kStrideA, int kStrideB, int kUnrollK>
  static __device__ __forceinline__ void a_bt(float (&acc)[kTiles][4], const T* a_rows, const T* b_rows,
                                              int lane) {
    static_assert(kTiles % 2 == 0, "B is loaded for two n8 tiles at a time");
    const T* a_lane = a_rows + a_operand_row(lane) * kStrideA + a_operand_col(lane);
    const T* b_lane = b_rows + bt_operand_row(lane) * kStrideB + bt_operand_col(lane);
#pragma unroll (kUnrollK)
    for (int kk = 0; kk < kDim / 16; ++kk) {
      uint32_t a[4];
      ldmatrix_x4(a, a_lane + kk * 16);
#pragma unroll
      for (int np = 0; np < kTiles / 2; ++np) {
        uint32_t b[4];
        ldmatrix_x4(b, b_lane + np * 16 * kStrideB + kk * 16);
        E::mma(acc[2 * np], a, b[0], b[1]);
        E::mma(acc[2 * np + 1], a, b[2], b[3]);
      }
    }
  }

  // acc (16 x kTiles*8) += X B: X (16 x kXTiles*8) in accumulator layout in registers, rounded
  // to T; B (kXTiles*8 rows x kTiles*8 columns) row-major in shared memory.
  template <int kXTiles, int kTiles, int kStrideB>
  static __device__ __forceinline__ void regs_b(float (&acc)[kTiles][4], const float (&x)[kXTiles][4],
                                                const T* b_rows, int lane) {
#pragma unroll
    for (int ks = 0; ks < kXTiles / 2; ++ks) {
      const uint32_t a[4] = {E::pack(x[2 * ks][0], x[2 * ks][1]), E::pack(x[2 * ks][2], x[2 * ks][3]),
                             E::pack(x[2 * ks + 1][0], x[2 * ks + 1][1]),
                             E::pack(x[2 * ks + 1][2], x[2 * ks + 1][3])};
      fragment_b<kTiles, kStrideB>(acc, a, b_rows, ks * 16, lane);
    }
  }

  // acc (16 x kTiles*8) += A B with both in shared memory: A 16 rows of kKeys at `a_rows`
  // (row-major, kStrideA), B kKeys rows of kTiles*8 columns at `b_cols` (row-major, kStrideB).
  // The backward's dQ += dS K.
  template <int kKeys, int kTiles, int kStrideA, int kStrideB>
  static __device__ __forceinline__ void a_b(float (&acc)[kTiles][4], const T* a_rows, const T* b_cols,
                                             int lane) {
#pragma unroll
    for (int ks = 0; ks < kKeys / 16; ++ks) {
      uint32_t a[4];
      ldmatrix_x4(a, a_rows + a_operand_row(lane) * kStrideA + ks * 16 + a_operand_col(lane));
      fragment_b<kTiles, kStrideB>(acc, a, b_cols, ks * 16, lane);
    }
  }

  // acc (16 x kTiles*8) += one k16 A fragment times rows row0..row0+15 of B at `b_rows`
  // (kTiles*8 columns, row-major in shared memory, read transposed by ldmatrix).
  template <int kTiles, int kStrideB>
  static __device__ __forceinline__ void fragment_b(float (&acc)[kTiles][4], const uint32_t (&a)[4],
                                                    const T* b_rows, int row0, int lane) {
#pragma unroll
    for (int dp = 0; dp < kTiles / 2; ++dp) {
      uint32_t b[4];
      ldmatrix_x4_trans(b, b_rows + (row0 + a_operand_row(lane)) * kStrideB + dp * 16 + a_operand_col(lane));
      E::mma(acc[2 * dp], a, b[0], b[1]);
      E::mma(acc[2 * dp + 1], a, b[2], b[3]);
    }
  }

  // Two adjacent accumulator values into shared memory as T.
  static __device__ __forceinline__ void store_pair(T* to, float lo, float hi) {
    *reinterpret_cast<uint32_t*>(to) = E::pack(lo, hi);
  }
};

// fp32 on tensor cores (3xTF32).
template <>
struct MmaOps<float> {
  template <int kDim, int kTiles, int kStrideA, int kStrideB, int kUnrollK>
  static __device__ __forceinline__ void a_bt(float (&acc)[kTiles][4], const float* a_rows,
                                              const float* b_rows, int lane) {
    tf32x3_a_bt<kDim / 8, kTiles, kStrideA, kStrideB, kUnrollK>(acc, a_rows, b_rows, lane);
  }

  template <int kXTiles, int kTiles, int kStrideB>
  static __device__ __forceinline__ void regs_b(float (&acc)[kTiles][4], const float (&x)[kXTiles][4],
                                                const float* b_rows, int lane) {
    tf32x3_regs_b<kXTiles, kTiles, kStrideB>(acc, x, b_rows, lane);
  }

  template <int kKeys, int kTiles, int kStrideA, int kStrideB>
  static __device__ __forceinline__ void a_b(float (&acc)[kTiles][4], const float* a_rows,
                                             const float* b_cols, int lane) {
    tf32x3_a_b<kKeys, kTiles, kStrideA, kStrideB>(acc, a_rows, b_cols, lane);
  }

  static __device__ __forceinline__ void store_pair(float* to, float lo, float hi) {
    *reinterpret_cast<float2*>(to) = make_float2(lo, hi);
  }

  // The forward's split K/V tiles (Tf32ForwardTraits::kSplitKv).
  template <int kRows, int kHeadDim, int kStride, int kVtStride, int kThreads>
  static __device__ __forceinline__ void split_kv(const float* raw_k, const float* raw_v, float* k_big,
                                                  float* k_small, float* vt_big, float* vt_small, int tid) {
    split_kv_tile<kRows, kHeadDim, kStride, kVtStride, kThreads>(raw_k, raw_v, k_big, k_small, vt_big, vt_small,
                                                                 tid);
  }

  template <int kDim, int kTiles, int kStrideA, int kStrideB, int kUnrollK>
  static __device__ __forceinline__ void a_bt_split(float (&acc)[kTiles][4], const float* a_rows,
                                                    const float* b_big, const float* b_small, int lane) {
    tf32x3_a_bt_split<kDim / 8, kTiles, kStrideA, kStrideB, kUnrollK>(acc, a_rows, b_big, b_small, lane);
  }

  template <int kXTiles, int kTiles, int kVtStride>
  static __device__ __forceinline__ void regs_b_split(float (&acc)[kTiles][4], const float (&x)[kXTiles][4],
                                                      const float* vt_big, const float* vt_small, int lane) {
    tf32x3_regs_b_split<kXTiles, kTiles, kVtStride>(acc, x, vt_big, vt_small, lane);
  }
};

}  // namespace stepscope::kernels::flash
