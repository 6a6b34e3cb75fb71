// What the RMSNorm and SwiGLU kernels share: the CUDA element type of a kernels::ElementType,
// 16-byte packed loads and stores, a warp sum; the fp32 conversions and CUDA checks of every
// fused kernel (element_io.cuh, fused_cuda_check.h) are brought in by name.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda/fused/element_io.cuh"
#include "kernels/cuda/fused/fused_cuda_check.h"
#include "kernels/flash_attention_args.h"  // ElementType

namespace stepscope::kernels::norm_gate {

// ---- host ----

using fused::check_cuda;

// The current device's multiprocessor count, queried once per device (launchers ask every call).
inline int multiprocessor_count() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  constexpr int kCachedDevices = 64;
  static std::atomic<int> cached[kCachedDevices];  // 0: not asked yet
  const bool cacheable = device >= 0 && device < kCachedDevices;
  int count = cacheable ? cached[device].load(std::memory_order_relaxed) : 0;
  if (count == 0) {
    check_cuda(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
               "cudaDeviceGetAttribute(multiprocessor count)");
    if (cacheable) cached[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

inline int element_bytes(ElementType type) { return type == ElementType::f32 ? 4 : 2; }

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with the CUDA type of `type`: one instantiation per element type.
template <class F>
void with_element_type(ElementType type, F&& f) {
  switch (type) {
    case ElementType::f32: f(TypeTag<float>{}); return;
    case ElementType::f16: f(TypeTag<__half>{}); return;
    case ElementType::bf16: f(TypeTag<__nv_bfloat16>{}); return;
  }
  throw std::invalid_argument("unknown element type");
}

// ---- device ----

using fused::from_float;
using fused::to_float;

// The widest load word for a pack of `kBytes` (at most 16: one LDG.128 per word).
template <int kBytes>
struct Word;
template <>
struct Word<2> {
  using type = unsigned short;
};
template <>
struct Word<4> {
  using type = unsigned int;
};
template <>
struct Word<8> {
  using type = uint2;
};
template <>
struct Word<16> {
  using type = uint4;
};

// N consecutive elements of T as raw words of min(16, N * sizeof(T)) bytes (one LDG.128 a word
// at most): a bf16 pack of 8 holds 4 registers where its floats would take 8, so kernels that
// keep rows in registers keep them packed. Addresses must be aligned to the word (the launchers
// check 16-byte bases and row lengths that keep every pack so).
template <int N, class T>
struct Pack {
  static constexpr int kBytes = N * static_cast<int>(sizeof(T));
  static constexpr int kWordBytes = kBytes < 16 ? kBytes : 16;
  static constexpr int kPerWord = kWordBytes / static_cast<int>(sizeof(T));
  using W = typename Word<kWordBytes>::type;
  W words[N / kPerWord];
};

template <int N, class T>
__device__ __forceinline__ Pack<N, T> load_pack(const T* p) {
  Pack<N, T> pack;
#pragma unroll
  for (int w = 0; w < N / Pack<N, T>::kPerWord; ++w) {
    pack.words[w] = reinterpret_cast<const typename Pack<N, T>::W*>(p)[w];
  }
  return pack;
}

template <int N, class T>
__device__ __forceinline__ void unpack(const Pack<N, T>& pack, float (&out)[N]) {
  constexpr int kPerWord = Pack<N, T>::kPerWord;
#pragma unroll
  for (int w = 0; w < N / kPerWord; ++w) {
    const T* elements = reinterpret_cast<const T*>(&pack.words[w]);
#pragma unroll
    for (int i = 0; i < kPerWord; ++i) out[w * kPerWord + i] = to_float(elements[i]);
  }
}

template <int N, class T>
__device__ __forceinline__ void load_floats(const T* p, float (&out)[N]) {
  unpack(load_pack<N>(p), out);
}

template <int N, class T>
__device__ __forceinline__ void store_floats(T* p, const float (&in)[N]) {
  using P = Pack<N, T>;
#pragma unroll
  for (int w = 0; w < N / P::kPerWord; ++w) {
    typename P::W bits;
    T* elements = reinterpret_cast<T*>(&bits);
#pragma unroll
    for (int i = 0; i < P::kPerWord; ++i) elements[i] = from_float<T>(in[w * P::kPerWord + i]);
    reinterpret_cast<typename P::W*>(p)[w] = bits;
  }
}

// Butterfly sum: every lane ends with the same bits (each step adds the same two values).
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

}  // namespace stepscope::kernels::norm_gate
