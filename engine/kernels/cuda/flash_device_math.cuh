// Warp-level building blocks of the tensor-core flash kernels: mma.sync m16n8k16 with fp32
// accumulators, ldmatrix, cp.async, and the fp16/bf16 <-> fp32 conversions they need.
//
// Fragment layout (PTX ISA, m16n8k16): with g = lane / 4 and t = lane % 4, accumulator
// registers c0,c1 hold row g, columns 2t and 2t+1; c2,c3 hold row g+8. A's registers hold
// (row g, k 2t..2t+1), (row g+8, k 2t..), (row g, k 2t+8..), (row g+8, k 2t+8..); B's hold
// (k 2t..2t+1, column g) and (k 2t+8.., column g). Hence two adjacent accumulator tiles of
// n8 are exactly one A operand of k16, which is how P and dS feed the next product.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace stepscope::kernels::flash {

template <typename T>
struct MmaElement;

template <>
struct MmaElement<__half> {
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    union { __half2 pair; uint32_t bits; } u;
    u.pair = __floats2half2_rn(lo, hi);
    return u.bits;
  }
  static __device__ __forceinline__ __half from_float(float x) { return __float2half_rn(x); }
  static __device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
  static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                             uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

template <>
struct MmaElement<__nv_bfloat16> {
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    union { __nv_bfloat162 pair; uint32_t bits; } u;
    u.pair = __floats2bfloat162_rn(lo, hi);
    return u.bits;
  }
  static __device__ __forceinline__ __nv_bfloat16 from_float(float x) {
    return __float2bfloat16_rn(x);
  }
  static __device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                             uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

// Element conversions for every type the kernels take, fp32 included.
template <typename T>
__device__ __forceinline__ float element_to_float(T x) { return MmaElement<T>::to_float(x); }
template <>
__device__ __forceinline__ float element_to_float<float>(float x) { return x; }

template <typename T>
__device__ __forceinline__ T element_from_float(float x) { return MmaElement<T>::from_float(x); }
template <>
__device__ __forceinline__ float element_from_float<float>(float x) { return x; }

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row))
               : "memory");
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row))
               : "memory");
}

// Lane offsets (row, column) for ldmatrix_x4 of a 16x16 block into the four registers of an
// A operand (row-major rows x k); the same offsets, with .trans on a (k rows x n) row-major
// block, give the B operands of two n8 tiles: registers {0,1} for columns 0..7, {2,3} for 8..15.
__device__ __forceinline__ int a_operand_row(int lane) { return (lane & 7) + ((lane >> 3) & 1) * 8; }
__device__ __forceinline__ int a_operand_col(int lane) { return (lane >> 4) * 8; }
// Offsets for ldmatrix_x4 (no .trans) on an (n rows x k) row-major block, giving the B
// operands of two n8 tiles: registers {0,1} for rows 0..7, {2,3} for rows 8..15.
__device__ __forceinline__ int bt_operand_row(int lane) { return (lane & 7) + (lane >> 4) * 8; }
__device__ __forceinline__ int bt_operand_col(int lane) { return ((lane >> 3) & 1) * 8; }

// 16 bytes global -> shared, asynchronously; copies zeros instead when !valid (the source is
// then not read, but must still be a valid address).
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, bool valid) {
  const int bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(smem)),
               "l"(gmem), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

// Adds (x, y) into two adjacent floats of global memory (8-byte aligned): one vector atomic on
// sm_90, which halves the dQ accumulator's atomic traffic, two scalar ones before it.
__device__ __forceinline__ void atomic_add_pair(float* address, float x, float y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float2*>(address), make_float2(x, y));
#else
  atomicAdd(address, x);
  atomicAdd(address + 1, y);
#endif
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}

__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

__device__ __forceinline__ float warp_max(float x) {
  for (int offset = 16; offset > 0; offset >>= 1)
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

__device__ __forceinline__ float warp_sum(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

}  // namespace stepscope::kernels::flash
