// Hopper (sm_90a) warpgroup MMA: shared-memory matrix descriptors, wgmma fence/commit/wait,
// register fences for the asynchronous window, and wgmma.mma_async m64nNk16 with f32
// accumulators and 16-bit operands, A from shared memory (ss) or registers (rs), with the
// operands' transpose bits. Shared by the forward and backward Hopper kernels.
//
// Every function is inline and emits sm_90a-only instructions: call them only from code that is
// compiled for sm_90a (e.g. inside `#if defined(__CUDA_ARCH_FEAT_SM90_ALL)`).
//
// wgmma register layouts (m64nNk16, per warpgroup of 4 warps; warp w owns rows 16w..16w+15,
// g = lane / 4, t = lane % 4):
//   f32 accumulator d[N/2]: d[4j + 0..1] = row g,     cols 8j + 2t, 8j + 2t + 1
//                           d[4j + 2..3] = row g + 8, the same cols            (j < N/8)
//   16-bit A from registers a[4] (2 elements each, low half first):
//     a[0] = row g, k 2t..2t+1;  a[1] = row g+8, k 2t..2t+1;
//     a[2] = row g, k 2t+8..2t+9; a[3] = row g+8, k 2t+8..2t+9
//   so packing accumulator n8 blocks 2k and 2k+1 gives the A fragment of k-step k.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace stepscope::kernels::sm90 {

// Swizzle modes of a wgmma matrix descriptor (its layout-type field, bits 62-63).
enum : uint64_t { kSwizzle128 = 1, kSwizzle64 = 2 };

// Shared-memory matrix descriptor of a swizzled operand, in the layout TMA writes with the
// matching CU_TENSOR_MAP_SWIZZLE_128B / _64B into aligned buffers: atoms of 8 rows of W bytes
// (W = 128 or 64). With 128 bytes, 16-byte chunk c of row r is stored at chunk c ^ (r % 8).
//   K-major operand (rows of W bytes of k values): lbo ignored (pass 16), sbo = the distance
//     between 8-row groups (1024 for W = 128, 512 for W = 64). Step k by 16 elements by adding
//     32 bytes to the start address.
//   MN-major operand (rows of W bytes of m/n values, one row per k; pass transpose = 1):
//     lbo = byte distance between W-wide m/n blocks, sbo = the distance between groups of 8 k
//     rows.
// Fields: start address >> 4 (bits 0-13), lbo >> 4 (16-29), sbo >> 4 (32-45), base offset 0
// (49-51: atoms are aligned), layout type = `swizzle` (62-63).
__device__ __forceinline__ uint64_t make_smem_desc(uint32_t smem_addr, uint32_t lbo_bytes,
                                                   uint32_t sbo_bytes, uint64_t swizzle) {
  uint64_t desc = (smem_addr & 0x3FFFFu) >> 4;
  desc |= static_cast<uint64_t>((lbo_bytes >> 4) & 0x3FFFu) << 16;
  desc |= static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFFu) << 32;
  desc |= swizzle << 62;
  return desc;
}

// Four 8x8 b16 matrices to shared memory: register i of every lane holds row lane / 4, columns
// 2 (lane % 4) and + 1 of matrix i (the mma fragment layout); lane 8 i + j gives the address of
// row j of matrix i.
__device__ __forceinline__ void stmatrix_x4(uint32_t row_addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(row_addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// Orders register/shared-memory writes before the wgmma that follow; needed before the first
// wgmma of a batch whenever its accumulators or A registers were written by ordinary code.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// Waits until at most kPending committed wgmma groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// Keeps the compiler from moving reads or writes of wgmma registers across the asynchronous
// window: apply to accumulators after wgmma_wait and before wgmma_fence.
template <int kCount>
__device__ __forceinline__ void fence_operand(float (&regs)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(regs[i])::"memory");
}

template <int kCount>
__device__ __forceinline__ void fence_operand(uint32_t (&regs)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+r"(regs[i])::"memory");
}

template <int kSteps>
__device__ __forceinline__ void fence_operand(uint32_t (&fragments)[kSteps][4]) {
#pragma unroll
  for (int i = 0; i < kSteps; ++i) fence_operand(fragments[i]);
}

template <typename T>
struct WgmmaElement {
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>,
                "wgmma wrappers take __nv_bfloat16 or __half");
  static constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
};

// Wgmma<N>::ss<T, kTransA, kTransB>(d, a_desc, b_desc, accumulate):
//   d (64 x N, f32) = A (64 x 16, shared) * B (16 x N, shared) + (accumulate ? d : 0).
//   kTransA/kTransB = 0: K-major operand; 1: MN-major (16-bit types only).
// Wgmma<N>::rs<T, kTransB>(d, a, b_desc, accumulate): A from registers (layout above).
template <int N>
struct Wgmma;

#define STEPSCOPE_WGMMA_F8(i)                                                               \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])

#define STEPSCOPE_WGMMA_REGS_16 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define STEPSCOPE_WGMMA_OPS_16 STEPSCOPE_WGMMA_F8(0)
#define STEPSCOPE_WGMMA_REGS_32 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define STEPSCOPE_WGMMA_OPS_32 STEPSCOPE_WGMMA_F8(0), STEPSCOPE_WGMMA_F8(8)
#define STEPSCOPE_WGMMA_REGS_64 "{" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" "}"
#define STEPSCOPE_WGMMA_OPS_64 STEPSCOPE_WGMMA_F8(0), STEPSCOPE_WGMMA_F8(8), STEPSCOPE_WGMMA_F8(16), STEPSCOPE_WGMMA_F8(24)
#define STEPSCOPE_WGMMA_REGS_96 "{" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" "}"
#define STEPSCOPE_WGMMA_OPS_96 STEPSCOPE_WGMMA_F8(0), STEPSCOPE_WGMMA_F8(8), STEPSCOPE_WGMMA_F8(16), STEPSCOPE_WGMMA_F8(24), \
    STEPSCOPE_WGMMA_F8(32), STEPSCOPE_WGMMA_F8(40)
#define STEPSCOPE_WGMMA_REGS_128 "{" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}"
#define STEPSCOPE_WGMMA_OPS_128 STEPSCOPE_WGMMA_F8(0), STEPSCOPE_WGMMA_F8(8), STEPSCOPE_WGMMA_F8(16), STEPSCOPE_WGMMA_F8(24), \
    STEPSCOPE_WGMMA_F8(32), STEPSCOPE_WGMMA_F8(40), STEPSCOPE_WGMMA_F8(48), STEPSCOPE_WGMMA_F8(56)
#define STEPSCOPE_WGMMA_REGS_192 "{" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" ", " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" "}"
#define STEPSCOPE_WGMMA_OPS_192 STEPSCOPE_WGMMA_F8(0), STEPSCOPE_WGMMA_F8(8), STEPSCOPE_WGMMA_F8(16), STEPSCOPE_WGMMA_F8(24), \
    STEPSCOPE_WGMMA_F8(32), STEPSCOPE_WGMMA_F8(40), STEPSCOPE_WGMMA_F8(48), STEPSCOPE_WGMMA_F8(56), \
    STEPSCOPE_WGMMA_F8(64), STEPSCOPE_WGMMA_F8(72), STEPSCOPE_WGMMA_F8(80), STEPSCOPE_WGMMA_F8(88)
#define STEPSCOPE_WGMMA_REGS_256 "{" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" ", " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" ", " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111" ", " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define STEPSCOPE_WGMMA_OPS_256 STEPSCOPE_WGMMA_F8(0), STEPSCOPE_WGMMA_F8(8), STEPSCOPE_WGMMA_F8(16), STEPSCOPE_WGMMA_F8(24), \
    STEPSCOPE_WGMMA_F8(32), STEPSCOPE_WGMMA_F8(40), STEPSCOPE_WGMMA_F8(48), STEPSCOPE_WGMMA_F8(56), \
    STEPSCOPE_WGMMA_F8(64), STEPSCOPE_WGMMA_F8(72), STEPSCOPE_WGMMA_F8(80), STEPSCOPE_WGMMA_F8(88), \
    STEPSCOPE_WGMMA_F8(96), STEPSCOPE_WGMMA_F8(104), STEPSCOPE_WGMMA_F8(112), STEPSCOPE_WGMMA_F8(120)

#define STEPSCOPE_WGMMA_SS_ASM(N, TY, REGS, A, B, ACC, TA, TB)                                 \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" #ACC ", 0;\nwgmma.mma_async.sync.aligned.m64n" #N      \
  "k16.f32." TY "." TY " " REGS ", %" #A ", %" #B ", p, 1, 1, %" #TA ", %" #TB ";\n}\n"
#define STEPSCOPE_WGMMA_RS_ASM(N, TY, REGS, A0, A1, A2, A3, B, ACC, TB)                        \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" #ACC ", 0;\nwgmma.mma_async.sync.aligned.m64n" #N      \
  "k16.f32." TY "." TY " " REGS ", {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #B            \
  ", p, 1, 1, %" #TB ";\n}\n"

#define STEPSCOPE_WGMMA_DEFINE(N, R0, R1, R2, R3, R4, R5, R6)                                  \
  template <>                                                                                 \
  struct Wgmma<N> {                                                                           \
    template <typename T, int kTransA, int kTransB>                                           \
    static __device__ __forceinline__ void ss(float (&d)[N / 2], uint64_t a, uint64_t b,      \
                                              bool accumulate) {                              \
      if constexpr (WgmmaElement<T>::kBf16) {                                                           \
        asm volatile(STEPSCOPE_WGMMA_SS_ASM(N, "bf16", STEPSCOPE_WGMMA_REGS_##N, R0, R1, R2,  \
                                            R3, R4)                                           \
                     : STEPSCOPE_WGMMA_OPS_##N                                                \
                     : "l"(a), "l"(b), "r"(int(accumulate)), "n"(kTransA), "n"(kTransB));     \
      } else {                                                                                \
        asm volatile(STEPSCOPE_WGMMA_SS_ASM(N, "f16", STEPSCOPE_WGMMA_REGS_##N, R0, R1, R2,   \
                                            R3, R4)                                           \
                     : STEPSCOPE_WGMMA_OPS_##N                                                \
                     : "l"(a), "l"(b), "r"(int(accumulate)), "n"(kTransA), "n"(kTransB));     \
      }                                                                                       \
    }                                                                                         \
    template <typename T, int kTransB>                                                        \
    static __device__ __forceinline__ void rs(float (&d)[N / 2], const uint32_t (&a)[4],      \
                                              uint64_t b, bool accumulate) {                  \
      if constexpr (WgmmaElement<T>::kBf16) {                                                           \
        asm volatile(STEPSCOPE_WGMMA_RS_ASM(N, "bf16", STEPSCOPE_WGMMA_REGS_##N, R0, R1, R2,  \
                                            R3, R4, R5, R6)                                   \
                     : STEPSCOPE_WGMMA_OPS_##N                                                \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b),                    \
                       "r"(int(accumulate)), "n"(kTransB));                                   \
      } else {                                                                                \
        asm volatile(STEPSCOPE_WGMMA_RS_ASM(N, "f16", STEPSCOPE_WGMMA_REGS_##N, R0, R1, R2,   \
                                            R3, R4, R5, R6)                                   \
                     : STEPSCOPE_WGMMA_OPS_##N                                                \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b),                    \
                       "r"(int(accumulate)), "n"(kTransB));                                   \
      }                                                                                       \
    }                                                                                         \
  };

STEPSCOPE_WGMMA_DEFINE(16, 8, 9, 10, 11, 12, 13, 14)
STEPSCOPE_WGMMA_DEFINE(32, 16, 17, 18, 19, 20, 21, 22)
STEPSCOPE_WGMMA_DEFINE(64, 32, 33, 34, 35, 36, 37, 38)
STEPSCOPE_WGMMA_DEFINE(96, 48, 49, 50, 51, 52, 53, 54)
STEPSCOPE_WGMMA_DEFINE(128, 64, 65, 66, 67, 68, 69, 70)
STEPSCOPE_WGMMA_DEFINE(192, 96, 97, 98, 99, 100, 101, 102)
STEPSCOPE_WGMMA_DEFINE(256, 128, 129, 130, 131, 132, 133, 134)

#undef STEPSCOPE_WGMMA_DEFINE
#undef STEPSCOPE_WGMMA_RS_ASM
#undef STEPSCOPE_WGMMA_SS_ASM

}  // namespace stepscope::kernels::sm90
