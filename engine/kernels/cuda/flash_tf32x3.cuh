// fp32 products on tensor cores with three TF32 mma.sync (m16n8k8), the "3xTF32" split that
// CUTLASS calls OpMultiplyAddFastF32 and PyTorch's memory-efficient attention runs for fp32:
// x = big + small with big = tf32(x) and small = tf32(x - big), and
//   a*b ~ a_small*b_big + a_big*b_small + a_big*b_big,
// leaving out a_small*b_small (~2^-22 relative). Accuracy stays at fp32's level (errors of a
// few 1e-7 relative per product) at several times the speed of fp32 FFMA.
//
// Fragment layout (PTX ISA, m16n8k8 .tf32), g = lane / 4, t = lane % 4: A holds (row g, k t),
// (row g+8, k t), (row g, k t+4), (row g+8, k t+4); B holds (k t, column g), (k t+4, column g);
// the fp32 accumulator is the m16n8k16 one (row g, columns 2t, 2t+1; rows g+8).
//
// ldmatrix moves 8 rows of 16 bytes, which for fp32 is 8 rows x 4 elements with lane 4r + c
// receiving (row r, element c): exactly the A and (row-major B^T) B fragments above, with the
// same byte offsets as the 16-bit kernels' k16 steps. An accumulator tile is not an A fragment
// (it holds columns 2t, 2t+1, not t, t+4), so products taking P or dS from registers run the k
// dimension permuted: k index t stands for column 2t and t+4 for column 2t+1, and their B rows
// are read in the same order.
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_traits.h"

#include <cstdint>

namespace stepscope::kernels::flash {

struct Tf32Pair {
  uint32_t big;
  uint32_t small;
};

// x rounded to TF32 (10 mantissa bits), to nearest with ties away from zero: what
// cvt.rna.tf32.f32 gives, as an integer add and mask on the magnitude bits. The splits are the
// kernels' busiest ALU work, and this form made the fp32 forward 15-22 % faster than cvt.rna
// with the same results (H100, 2026-11-24).
__device__ __forceinline__ uint32_t to_tf32(float x) {
  return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}

__device__ __forceinline__ Tf32Pair split_tf32(float x) {
  const uint32_t big = to_tf32(x);
  return {big, to_tf32(x - __uint_as_float(big))};
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// An A fragment (4 values) split into its big and small parts.
struct Tf32A {
  uint32_t big[4];
  uint32_t small[4];
};

__device__ __forceinline__ Tf32A split_a(float a0, float a1, float a2, float a3) {
  const float v[4] = {a0, a1, a2, a3};
  Tf32A a;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const Tf32Pair s = split_tf32(v[i]);
    a.big[i] = s.big;
    a.small[i] = s.small;
  }
  return a;
}

// sum += a * b for one m16n8k8 tile with B already split, the small terms first so they are
// not lost against the big.
__device__ __forceinline__ void mma_tf32x3(float (&sum)[4], const Tf32A& a, Tf32Pair b0, Tf32Pair b1) {
  mma_tf32(sum, a.small, b0.big, b1.big);
  mma_tf32(sum, a.big, b0.small, b1.small);
  mma_tf32(sum, a.big, b0.big, b1.big);
}

__device__ __forceinline__ void mma_tf32x3(float (&sum)[4], const Tf32A& a, float b0, float b1) {
  mma_tf32x3(sum, a, split_tf32(b0), split_tf32(b1));
}

// The tensor cores add into their accumulator with truncation, so a long chain of mma.sync into
// one accumulator drifts toward zero by ~2^-23 per step: chained across all of a causal s4096
// head, dV's error grew linearly with the sequence (1.3e-4 at s4096 against SDPA's 5e-6). The
// products that accumulate across tiles (O, dK, dV) therefore chain only through one tile's k
// range into a fresh sum, which is then added to the accumulator in fp32 (rounded to nearest).
// Products whose accumulator starts from zero for each tile (S, dP, dQ) chain directly.
__device__ __forceinline__ void add_sum(float (&acc)[4], const float (&sum)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) acc[i] += sum[i];
}

// The A fragment of a 16 x 8 block at `rows` (row-major fp32, kStride floats apart).
template <int kStride>
__device__ __forceinline__ Tf32A load_a_tf32(const float* rows, int lane) {
  uint32_t r[4];
  ldmatrix_x4(r, rows + a_operand_row(lane) * kStride + (lane >> 4) * 4);
  return split_a(__uint_as_float(r[0]), __uint_as_float(r[1]), __uint_as_float(r[2]),
                 __uint_as_float(r[3]));
}

// The B operand of two n8 tiles (rows n0 .. n0+15 of a row-major (n x k) array), k step kk, as
// tf32x3_a_bt loads it: registers 0, 1 for tile n0, 2, 3 for tile n0 + 8.
template <int kStride>
__device__ __forceinline__ void load_b_pair(uint32_t (&b)[4], const float* rows, int n0, int kk, int lane) {
  ldmatrix_x4(b, rows + (n0 + bt_operand_row(lane)) * kStride + kk * 8 + ((lane >> 3) & 1) * 4);
}

// The loop both A B^T forms share: A loaded and split per k step, B two n8 tiles at a time;
// `tile_pair(acc0, acc1, a, n0, kk)` loads B rows n0 .. n0+15 of step kk and adds their products.
// kUnrollK below kSteps keeps the compiler from hoisting every step's operand loads, which the
// register-bound backward measured faster for (d128: 6.4 against 11.5 ms, H100).
template <int kSteps, int kTiles, int kStrideA, int kUnrollK, class TilePair>
__device__ __forceinline__ void tf32x3_a_bt_pairs(float (&acc)[kTiles][4], const float* a_rows, int lane,
                                                  TilePair tile_pair) {
  static_assert(kTiles % 2 == 0, "B is loaded for two n8 tiles at a time");
#pragma unroll (kUnrollK)
  for (int kk = 0; kk < kSteps; ++kk) {
    const Tf32A a = load_a_tf32<kStrideA>(a_rows + kk * 8, lane);
#pragma unroll
    for (int np = 0; np < kTiles / 2; ++np) tile_pair(acc[2 * np], acc[2 * np + 1], a, np * 16, kk);
  }
}

// acc (16 x kTiles*8) += A (16 x 8*kSteps at `a_rows`) times B^T, B being kTiles*8 rows of
// 8*kSteps floats at `b_rows`: C = A B^T, both operands row-major in shared memory.
template <int kSteps, int kTiles, int kStrideA, int kStrideB, int kUnrollK = kSteps>
__device__ __forceinline__ void tf32x3_a_bt(float (&acc)[kTiles][4], const float* a_rows,
                                            const float* b_rows, int lane) {
  tf32x3_a_bt_pairs<kSteps, kTiles, kStrideA, kUnrollK>(
      acc, a_rows, lane, [&](float (&acc0)[4], float (&acc1)[4], Tf32A a, int n0, int kk) {
        uint32_t b[4];
        load_b_pair<kStrideB>(b, b_rows, n0, kk, lane);
        mma_tf32x3(acc0, a, __uint_as_float(b[0]), __uint_as_float(b[1]));
        mma_tf32x3(acc1, a, __uint_as_float(b[2]), __uint_as_float(b[3]));
      });
}

template <int kTiles>
constexpr int kRegsChunk = kTiles <= 8 ? kTiles : kTiles % 8 == 0 ? 8 : 6;  // 12 tiles at d96

// The loop both X B forms share: X split once, n8 tiles kRegsChunk at a time through fresh sums;
// `step(sum, a, ks, c)` adds k step ks's products for tiles c .. c + kRegsChunk - 1. It takes `a`
// by value: by reference, ptxas schedules the split d128 forward with 76 fewer registers and it
// ran 8 % slower (H100, 2026-11-24).
template <int kSteps, int kTiles, class Step>
__device__ __forceinline__ void tf32x3_regs_chunks(float (&acc)[kTiles][4], const float (&x)[kSteps][4], Step step) {
  constexpr int kChunk = kRegsChunk<kTiles>;
  static_assert(kTiles % kChunk == 0, "whole chunks of n8 tiles");
  Tf32A split[kSteps];
#pragma unroll
  for (int ks = 0; ks < kSteps; ++ks) split[ks] = split_a(x[ks][0], x[ks][2], x[ks][1], x[ks][3]);
#pragma unroll
  for (int c = 0; c < kTiles; c += kChunk) {
    float sum[kChunk][4];
#pragma unroll
    for (int n = 0; n < kChunk; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) sum[n][e] = 0.f;
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) step(sum, split[ks], ks, c);
#pragma unroll
    for (int n = 0; n < kChunk; ++n) add_sum(acc[c + n], sum[n]);
  }
}

// acc (16 x kTiles*8) += X B, X (16 x 8*kSteps) in accumulator layout in registers, B
// (8*kSteps rows x kTiles*8 columns, row-major in shared memory), k permuted as above: the
// thread reads B rows 2t and 2t+1 of each step at column g, which with kStride = 4 (mod 32)
// floats puts a warp's 32 reads in 32 different banks. X is split once; up to eight n8 tiles at
// a time go through fresh sums (see add_sum), which bounds their registers.
template <int kSteps, int kTiles, int kStrideB>
__device__ __forceinline__ void tf32x3_regs_b(float (&acc)[kTiles][4], const float (&x)[kSteps][4],
                                              const float* b_rows, int lane) {
  constexpr int kChunk = kRegsChunk<kTiles>;
  const float* b0_row = b_rows + 2 * (lane % 4) * kStrideB + lane / 4;
  tf32x3_regs_chunks(acc, x, [&](float (&sum)[kChunk][4], Tf32A a, int ks, int c) {
    const float* row = b0_row + ks * 8 * kStrideB + c * 8;
#pragma unroll
    for (int n = 0; n < kChunk; ++n) mma_tf32x3(sum[n], a, row[n * 8], row[kStrideB + n * 8]);
  });
}

// acc (16 x kTiles*8) += A B with both in shared memory: A 16 rows of kK floats at `a_rows`
// (kStrideA apart), B kK rows of kTiles*8 columns at `b_cols` (kStrideB apart), the k dimension
// permuted as above: a thread's A values are the adjacent elements 2t, 2t+1 (one 8-byte load),
// its B values rows 2t and 2t+1.
template <int kK, int kTiles, int kStrideA, int kStrideB>
__device__ __forceinline__ void tf32x3_a_b(float (&acc)[kTiles][4], const float* a_rows,
                                           const float* b_cols, int lane) {
  const int g = lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int ks = 0; ks < kK / 8; ++ks) {
    const float2 lo = *reinterpret_cast<const float2*>(a_rows + g * kStrideA + ks * 8 + 2 * t);
    const float2 hi = *reinterpret_cast<const float2*>(a_rows + (g + 8) * kStrideA + ks * 8 + 2 * t);
    const Tf32A a = split_a(lo.x, hi.x, lo.y, hi.y);
    const float* b0_row = b_cols + (ks * 8 + 2 * t) * kStrideB + g;
#pragma unroll
    for (int n = 0; n < kTiles; ++n) mma_tf32x3(acc[n], a, b0_row[n * 8], b0_row[kStrideB + n * 8]);
  }
}

// Operands split once per CTA (the forward's kSplitKv): the big and small parts of a tile lie
// in two arrays of the tile's layout, so a warp loads both with ldmatrix and splits nothing.

// Splits a raw K/V tile pair (kRows x kHeadDim, kStride apart) into K's parts (same layout)
// and V's transposed parts: row c of V^T holds column c of V, its keys in P's register order
// (within each group of 8, key 2t at position t and key 2t+1 at t+4). A warp takes 32 rows of
// one 4-column chunk: its row-wise reads and V^T's column-wise writes are conflict-free.
template <int kRows, int kHeadDim, int kStride, int kVtStride, int kThreads>
__device__ __forceinline__ void split_kv_tile(const float* raw_k, const float* raw_v, float* k_big,
                                              float* k_small, float* vt_big, float* vt_small, int tid) {
  static_assert(kRows % kWarpSize == 0 && kThreads % kRows == 0, "a warp splits 32 whole rows");
  constexpr int kChunkStep = kThreads / kRows;  // 4-column chunks per pass of the CTA
  static_assert((kHeadDim / 4) % kChunkStep == 0, "whole passes");
  // A thread keeps its row for every pass: the offsets below are immediates after unrolling.
  const int r = tid % kRows;
  const int c0 = tid / kRows * 4;
  const int key = (r & ~7) + ((r & 7) >> 1) + (r & 1) * 4;
  const float* k_row = raw_k + r * kStride + c0;
  const float* v_row = raw_v + r * kStride + c0;
  float* kb = k_big + r * kStride + c0;
  float* ks = k_small + r * kStride + c0;
  float* vb = vt_big + c0 * kVtStride + key;
  float* vs = vt_small + c0 * kVtStride + key;
#pragma unroll
  for (int pass = 0; pass < kHeadDim / 4 / kChunkStep; ++pass) {
    const int c = pass * kChunkStep * 4;
    const float4 kx = *reinterpret_cast<const float4*>(k_row + c);
    const float4 vx = *reinterpret_cast<const float4*>(v_row + c);
    const Tf32Pair k0 = split_tf32(kx.x), k1 = split_tf32(kx.y), k2 = split_tf32(kx.z), k3 = split_tf32(kx.w);
    *reinterpret_cast<uint4*>(kb + c) = make_uint4(k0.big, k1.big, k2.big, k3.big);
    *reinterpret_cast<uint4*>(ks + c) = make_uint4(k0.small, k1.small, k2.small, k3.small);
    const float v[4] = {vx.x, vx.y, vx.z, vx.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const Tf32Pair p = split_tf32(v[i]);
      vb[(c + i) * kVtStride] = __uint_as_float(p.big);
      vs[(c + i) * kVtStride] = __uint_as_float(p.small);
    }
  }
}

// tf32x3_a_bt with B split beforehand into `b_big` and `b_small` (same layout).
template <int kSteps, int kTiles, int kStrideA, int kStrideB, int kUnrollK = kSteps>
__device__ __forceinline__ void tf32x3_a_bt_split(float (&acc)[kTiles][4], const float* a_rows, const float* b_big,
                                                  const float* b_small, int lane) {
  tf32x3_a_bt_pairs<kSteps, kTiles, kStrideA, kUnrollK>(
      acc, a_rows, lane, [&](float (&acc0)[4], float (&acc1)[4], Tf32A a, int n0, int kk) {
        uint32_t big[4], small[4];
        load_b_pair<kStrideB>(big, b_big, n0, kk, lane);
        load_b_pair<kStrideB>(small, b_small, n0, kk, lane);
        mma_tf32x3(acc0, a, {big[0], small[0]}, {big[1], small[1]});
        mma_tf32x3(acc1, a, {big[2], small[2]}, {big[3], small[3]});
      });
}

// tf32x3_regs_b with B given as split_kv_tile's V^T parts: B^T rows in P's key order, so the
// permuted k of the register operand meets an ldmatrix of B^T.
template <int kSteps, int kTiles, int kVtStride>
__device__ __forceinline__ void tf32x3_regs_b_split(float (&acc)[kTiles][4], const float (&x)[kSteps][4],
                                                    const float* vt_big, const float* vt_small, int lane) {
  constexpr int kChunk = kRegsChunk<kTiles>;
  static_assert(kChunk % 2 == 0, "B is loaded for two n8 tiles at a time");
  tf32x3_regs_chunks(acc, x, [&](float (&sum)[kChunk][4], Tf32A a, int ks, int c) {
#pragma unroll
    for (int np = 0; np < kChunk / 2; ++np) {
      uint32_t big[4], small[4];
      load_b_pair<kVtStride>(big, vt_big, (c + 2 * np) * 8, ks, lane);
      load_b_pair<kVtStride>(small, vt_small, (c + 2 * np) * 8, ks, lane);
      mma_tf32x3(sum[2 * np], a, {big[0], small[0]}, {big[1], small[1]});
      mma_tf32x3(sum[2 * np + 1], a, {big[2], small[2]}, {big[3], small[3]});
    }
  });
}

}  // namespace stepscope::kernels::flash
