// RoPE on the fused q/k/v rows, forward and backward, one kernel each.
//
// A thread block covers 256 / tx tokens (rows), tx threads per row walking it in chunks of VEC
// elements: 16 bytes per load and store where the views allow it (VEC = 8 bf16/fp16 or 4 fp32,
// the chunk inside one head, so its VEC / 2 pairs have consecutive table entries, read as one
// float4 or float2), else one pair (2 elements) a thread with element loads. Every byte of the
// rows is read once and written once; the tables (seq x head_dim / 2 fp32 each) are read by
// every row of a position and stay in L1/L2.
#include "kernels/cuda/fused/rope_qkv_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "kernels/cuda/fused/element_io.cuh"
#include "kernels/cuda/fused/fused_cuda_check.h"

namespace stepscope::kernels {

namespace {

constexpr int kThreads = 256;

using fused::from_float;
using fused::to_float;

// VEC elements in one aligned access.
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Pack {
  T v[VEC];
};

// VEC elements at `p`, `stride` apart: one access when kVector (stride 1, aligned).
template <typename T, int VEC, bool kVector>
__device__ __forceinline__ void load_elements(const T* p, int64_t stride, float (&x)[VEC]) {
  if constexpr (kVector) {
    const Pack<T, VEC> pack = *reinterpret_cast<const Pack<T, VEC>*>(p);
#pragma unroll
    for (int i = 0; i < VEC; ++i) x[i] = to_float(pack.v[i]);
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) x[i] = to_float(p[i * stride]);
  }
}

template <typename T, int VEC, bool kVector>
__device__ __forceinline__ void store_elements(T* p, const float (&x)[VEC]) {
  if constexpr (kVector) {
    Pack<T, VEC> pack;
#pragma unroll
    for (int i = 0; i < VEC; ++i) pack.v[i] = from_float<T>(x[i]);
    *reinterpret_cast<Pack<T, VEC>*>(p) = pack;
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) p[i] = from_float<T>(x[i]);
  }
}

// N consecutive table entries (N = 1, 2 or 4; aligned to N floats).
template <int N>
__device__ __forceinline__ void load_table(const float* p, float (&out)[N]) {
  if constexpr (N == 4) {
    const float4 f = *reinterpret_cast<const float4*>(p);
    out[0] = f.x, out[1] = f.y, out[2] = f.z, out[3] = f.w;
  } else if constexpr (N == 2) {
    const float2 f = *reinterpret_cast<const float2*>(p);
    out[0] = f.x, out[1] = f.y;
  } else {
    out[0] = *p;
  }
}

// The reference's rounding: each product rounded, then the sum (no fused multiply-add), so fp32
// results equal LibTorch's `cos * even - sin * odd` bit for bit.
__device__ __forceinline__ void rotate(float c, float s, float& even, float& odd) {
  const float e = __fsub_rn(__fmul_rn(c, even), __fmul_rn(s, odd));
  const float o = __fadd_rn(__fmul_rn(s, even), __fmul_rn(c, odd));
  even = e;
  odd = o;
}

// The transpose: d_even = cos * g_even + sin * g_odd, d_odd = cos * g_odd - sin * g_even.
__device__ __forceinline__ void rotate_back(float c, float s, float& even, float& odd) {
  const float e = __fadd_rn(__fmul_rn(c, even), __fmul_rn(s, odd));
  const float o = __fsub_rn(__fmul_rn(c, odd), __fmul_rn(s, even));
  even = e;
  odd = o;
}

// Rotates the VEC / 2 pairs of x, whose first pair is pair `pair` of its head at this row's
// table entries.
template <int VEC, bool kVector, bool kBackward>
__device__ __forceinline__ void rotate_chunk(const float* cos_row, const float* sin_row, int pair, float (&x)[VEC]) {
  constexpr int kPairs = VEC / 2;
  float c[kPairs], s[kPairs];
  if constexpr (kVector) {
    load_table<kPairs>(cos_row + pair, c);
    load_table<kPairs>(sin_row + pair, s);
  } else {
#pragma unroll
    for (int p = 0; p < kPairs; ++p) c[p] = cos_row[pair + p], s[p] = sin_row[pair + p];
  }
#pragma unroll
  for (int p = 0; p < kPairs; ++p) {
    if constexpr (kBackward) {
      rotate_back(c[p], s[p], x[2 * p], x[2 * p + 1]);
    } else {
      rotate(c[p], s[p], x[2 * p], x[2 * p + 1]);
    }
  }
}

struct RowGeometry {
  int64_t tokens;
  int seq;
  int d_model;
  int head_dim;
};

template <typename T, int VEC, bool kVector>
__global__ void __launch_bounds__(kThreads)
    rope_qkv_forward_kernel(const T* __restrict__ qkv, int64_t batch_stride, int64_t seq_stride, T* __restrict__ out,
                            const float* __restrict__ cos, const float* __restrict__ sin, RowGeometry g) {
  const int64_t token = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (token >= g.tokens) return;
  const int64_t b = token / g.seq;
  const int s = static_cast<int>(token - b * g.seq);
  const T* src = qkv + b * batch_stride + s * seq_stride;
  const int row = 3 * g.d_model;
  T* dst = out + token * row;
  const int half = g.head_dim / 2;
  const float* cos_row = cos + static_cast<int64_t>(s) * half;
  const float* sin_row = sin + static_cast<int64_t>(s) * half;
  for (int j = threadIdx.x * VEC; j < row; j += blockDim.x * VEC) {
    float x[VEC];
    load_elements<T, VEC, kVector>(src + j, 1, x);
    if (j < 2 * g.d_model) {  // q or k (a chunk never straddles two sections or two heads)
      const int in_head = (j < g.d_model ? j : j - g.d_model) % g.head_dim;
      rotate_chunk<VEC, kVector, false>(cos_row, sin_row, in_head / 2, x);
    }
    store_elements<T, VEC, kVector>(dst + j, x);
  }
}

template <typename T>
struct GradViews {
  const T* dq;
  const T* dk;
  const T* dv;
  RopeHeadStrides q, k, v;
};

template <typename T, int VEC, bool kVector>
__global__ void __launch_bounds__(kThreads)
    rope_qkv_backward_kernel(GradViews<T> grads, T* __restrict__ d_qkv, const float* __restrict__ cos,
                             const float* __restrict__ sin, RowGeometry g) {
  const int64_t token = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (token >= g.tokens) return;
  const int64_t b = token / g.seq;
  const int s = static_cast<int>(token - b * g.seq);
  const int row = 3 * g.d_model;
  T* dst = d_qkv + token * row;
  const int half = g.head_dim / 2;
  const float* cos_row = cos + static_cast<int64_t>(s) * half;
  const float* sin_row = sin + static_cast<int64_t>(s) * half;
  for (int j = threadIdx.x * VEC; j < row; j += blockDim.x * VEC) {
    const int section = j < g.d_model ? 0 : (j < 2 * g.d_model ? 1 : 2);
    const int in_section = j - section * g.d_model;
    const int head = in_section / g.head_dim;
    const int d = in_section - head * g.head_dim;
    const T* base = section == 0 ? grads.dq : (section == 1 ? grads.dk : grads.dv);
    const RopeHeadStrides st = section == 0 ? grads.q : (section == 1 ? grads.k : grads.v);
    const T* src = base + b * st.batch + head * st.head + s * st.seq + d * st.dim;
    float x[VEC];
    load_elements<T, VEC, kVector>(src, st.dim, x);
    if (section < 2) rotate_chunk<VEC, kVector, true>(cos_row, sin_row, d / 2, x);
    store_elements<T, VEC, kVector>(dst + j, x);
  }
}

bool aligned(const void* p, int64_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Threads per row (a multiple of 32, at most kThreads) and rows per block for rows of `chunks`.
dim3 block_for(int chunks) {
  const int per_row = std::min(kThreads, (chunks + 31) / 32 * 32);
  return dim3(per_row, kThreads / per_row);
}

RowGeometry geometry_of(const RopeShape& shape) {
  return {shape.batch * shape.seq, static_cast<int>(shape.seq), static_cast<int>(shape.heads * shape.head_dim),
          static_cast<int>(shape.head_dim)};
}

void check_args(const RopeShape& shape, const RopeTables& tables) {
  const std::string problem = rope_shape_problem(shape);
  if (!problem.empty()) throw std::runtime_error("rope qkv: " + problem);
  if (tables.cos == nullptr || tables.sin == nullptr) throw std::runtime_error("rope qkv: cos and sin tables are null");
}

template <typename T, int VEC, bool kVector>
void launch_forward(const RopeQkvForwardArgs& args, cudaStream_t stream) {
  const RowGeometry g = geometry_of(args.shape);
  const dim3 block = block_for((3 * g.d_model) / VEC);
  const int64_t blocks = (g.tokens + block.y - 1) / block.y;
  rope_qkv_forward_kernel<T, VEC, kVector><<<static_cast<unsigned>(blocks), block, 0, stream>>>(
      static_cast<const T*>(args.qkv), args.qkv_batch_stride, args.qkv_seq_stride, static_cast<T*>(args.out),
      args.tables.cos, args.tables.sin, g);
  fused::check_cuda(cudaGetLastError(), "rope qkv: the forward kernel's launch");
}

template <typename T, int VEC, bool kVector>
void launch_backward(const RopeQkvBackwardArgs& args, cudaStream_t stream) {
  const RowGeometry g = geometry_of(args.shape);
  const dim3 block = block_for((3 * g.d_model) / VEC);
  const int64_t blocks = (g.tokens + block.y - 1) / block.y;
  const GradViews<T> grads{static_cast<const T*>(args.dq), static_cast<const T*>(args.dk),
                           static_cast<const T*>(args.dv), args.dq_strides, args.dk_strides, args.dv_strides};
  rope_qkv_backward_kernel<T, VEC, kVector><<<static_cast<unsigned>(blocks), block, 0, stream>>>(
      grads, static_cast<T*>(args.d_qkv), args.tables.cos, args.tables.sin, g);
  fused::check_cuda(cudaGetLastError(), "rope qkv: the backward kernel's launch");
}

// 16-byte chunks where the head dim holds whole chunks and every view is aligned to them.
template <typename T>
constexpr int kVec = 16 / static_cast<int>(sizeof(T));

bool tables_vectorisable(const RopeTables& tables, int vec) {
  const int64_t table_bytes = static_cast<int64_t>(vec / 2) * 4;
  return aligned(tables.cos, table_bytes) && aligned(tables.sin, table_bytes);
}

template <typename T>
void forward_typed(const RopeQkvForwardArgs& a, cudaStream_t stream) {
  constexpr int vec = kVec<T>;
  const bool vector = a.shape.head_dim % vec == 0 && aligned(a.qkv, 16) && aligned(a.out, 16) &&
                      a.qkv_batch_stride % vec == 0 && a.qkv_seq_stride % vec == 0 && tables_vectorisable(a.tables, vec);
  if (vector) {
    launch_forward<T, vec, true>(a, stream);
  } else {
    launch_forward<T, 2, false>(a, stream);
  }
}

bool view_vectorisable(const void* p, const RopeHeadStrides& s, int vec) {
  return s.dim == 1 && s.batch % vec == 0 && s.head % vec == 0 && s.seq % vec == 0 && aligned(p, 16);
}

template <typename T>
void backward_typed(const RopeQkvBackwardArgs& a, cudaStream_t stream) {
  constexpr int vec = kVec<T>;
  const bool vector = a.shape.head_dim % vec == 0 && aligned(a.d_qkv, 16) && view_vectorisable(a.dq, a.dq_strides, vec) &&
                      view_vectorisable(a.dk, a.dk_strides, vec) && view_vectorisable(a.dv, a.dv_strides, vec) &&
                      tables_vectorisable(a.tables, vec);
  if (vector) {
    launch_backward<T, vec, true>(a, stream);
  } else {
    launch_backward<T, 2, false>(a, stream);
  }
}

}  // namespace

std::string rope_shape_problem(const RopeShape& shape) {
  std::ostringstream why;
  if (shape.batch < 1 || shape.seq < 1 || shape.heads < 1 || shape.head_dim < 2) {
    why << "batch " << shape.batch << ", seq " << shape.seq << ", heads " << shape.heads << ", head dim "
        << shape.head_dim << " (each must be at least 1, the head dim at least 2)";
  } else if (shape.head_dim % 2 != 0) {
    why << "head dim " << shape.head_dim << " is odd (rotary pairs need an even one)";
  } else if (shape.heads > std::numeric_limits<int>::max() / 3 / shape.head_dim) {
    why << "rows of 3 x " << shape.heads << " heads x " << shape.head_dim << " elements are too wide";
  } else if (shape.seq > std::numeric_limits<int>::max() ||
             shape.batch > std::numeric_limits<int64_t>::max() / 3 / shape.seq / (shape.heads * shape.head_dim)) {
    why << "batch " << shape.batch << " x seq " << shape.seq << " is too long";
  } else {
    const int64_t tokens = shape.batch * shape.seq;
    const int rows_per_block = static_cast<int>(block_for(static_cast<int>(3 * shape.heads * shape.head_dim) / 2).y);
    if ((tokens + rows_per_block - 1) / rows_per_block > std::numeric_limits<int>::max()) {
      why << "batch " << shape.batch << " x seq " << shape.seq << " needs more thread blocks than a CUDA grid takes";
    }
  }
  return why.str();
}

void rope_qkv_forward_cuda(const RopeQkvForwardArgs& args, cudaStream_t stream) {
  check_args(args.shape, args.tables);
  if (args.qkv == nullptr || args.out == nullptr) throw std::runtime_error("rope qkv: qkv or out is null");
  switch (args.type) {
    case ElementType::f32: forward_typed<float>(args, stream); break;
    case ElementType::f16: forward_typed<__half>(args, stream); break;
    case ElementType::bf16: forward_typed<__nv_bfloat16>(args, stream); break;
  }
}

void rope_qkv_backward_cuda(const RopeQkvBackwardArgs& args, cudaStream_t stream) {
  check_args(args.shape, args.tables);
  if (args.dq == nullptr || args.dk == nullptr || args.dv == nullptr || args.d_qkv == nullptr) {
    throw std::runtime_error("rope qkv: a gradient pointer is null");
  }
  switch (args.type) {
    case ElementType::f32: backward_typed<float>(args, stream); break;
    case ElementType::f16: backward_typed<__half>(args, stream); break;
    case ElementType::bf16: backward_typed<__nv_bfloat16>(args, stream); break;
  }
}

}  // namespace stepscope::kernels
