// AdamW over a flat fp32 buffer, multi-tensor style (PyTorch's multi_tensor_apply, llm.c's
// adamw_kernel3): the gradients' (pointer, range) table travels by value as a kernel parameter.
//
// Layout of the work: the flat buffer is cut into aligned groups of kVec = 4 elements (one
// 16-byte load of p, m and v each). Gradient i owns the groups its range touches; the groups of
// all the table's gradients are numbered one after another, and the grid (as many blocks as stay
// resident) walks that numbering with a grid-stride loop, one group per thread and iteration, so
// tensors of any size spread over every SM with no per-block chunk table and no tail per tensor.
// A group inside the range with aligned buffers takes 16-byte loads and stores (the gradient 16
// bytes for fp32, 8 for bf16/fp16, or element by element where its pointer is aligned otherwise
// than the flat buffer); the groups at a range's ends, which a neighbouring range may share, are
// done element by element with only the range's own elements written, so ranges never race.
//
// Bytes a parameter: p, m, v read and written (24), the gradient read (4 or 2), the copy written
// (2): 30 with fp32 gradients and a bf16 copy, 28 with bf16 gradients.
#include "kernels/cuda/fused/fused_adamw_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda/fused/fused_cuda_check.h"

namespace stepscope::kernels {

namespace {

using fused::check_cuda;

constexpr int kVec = 4;         // elements a thread updates per iteration
constexpr int kThreads = 512;   // threads a block
constexpr int kTable = kFusedAdamWTableSize;

// The gradients of one launch. Element e of params with begin[i] <= e < end[i] has the gradient
// element e - begin[i] of grad[i]; gradient i owns the virtual groups [first_group[i],
// first_group[i + 1]), the first of which is the flat group begin[i] / kVec.
struct GradTable {
  const void* grad[kTable];
  int64_t begin[kTable];
  int64_t end[kTable];
  int64_t first_group[kTable + 1];
  uint8_t grad_vector[kTable];  // 1: the gradient's groups of kVec elements are kVec-aligned in memory
  int count;
};

struct UpdateParams {
  float* params;
  float* exp_avg;
  float* exp_avg_sq;
  void* copy;
  const int64_t* step;
  double lr, beta1, beta2;  // the bias corrections, in double
  float beta1f, one_minus_beta1, beta2f, one_minus_beta2, eps, decay;
  int vector_ok;  // params, m, v 16-byte aligned and the copy 8-byte aligned
};

static_assert(sizeof(GradTable) + sizeof(UpdateParams) <= 4096 - 256, "the kernel's parameters must stay under 4 KiB");

struct NoCopy {};

__device__ __forceinline__ float bf16_bits_to_float(unsigned short bits) {
  return __uint_as_float(static_cast<unsigned int>(bits) << 16);
}
__device__ __forceinline__ float f16_bits_to_float(unsigned short bits) { return __half2float(__ushort_as_half(bits)); }

// Gradient loads: one element, or kVec elements from a kVec-aligned address. Streaming loads:
// nothing is read twice.
template <class G>
struct GradLoad;
template <>
struct GradLoad<float> {
  static __device__ __forceinline__ float one(const void* base, int64_t i) {
    return __ldcs(static_cast<const float*>(base) + i);
  }
  static __device__ __forceinline__ void four(const void* base, int64_t i, float g[kVec]) {
    const float4 x = __ldcs(reinterpret_cast<const float4*>(static_cast<const float*>(base) + i));
    g[0] = x.x, g[1] = x.y, g[2] = x.z, g[3] = x.w;
  }
};
template <class Convert>
struct Half16Load {
  static __device__ __forceinline__ float one(const void* base, int64_t i) {
    return Convert::to_float(__ldcs(static_cast<const unsigned short*>(base) + i));
  }
  static __device__ __forceinline__ void four(const void* base, int64_t i, float g[kVec]) {
    const uint2 x = __ldcs(reinterpret_cast<const uint2*>(static_cast<const unsigned short*>(base) + i));
    g[0] = Convert::to_float(static_cast<unsigned short>(x.x & 0xffffu));
    g[1] = Convert::to_float(static_cast<unsigned short>(x.x >> 16));
    g[2] = Convert::to_float(static_cast<unsigned short>(x.y & 0xffffu));
    g[3] = Convert::to_float(static_cast<unsigned short>(x.y >> 16));
  }
};
struct Bf16Bits {
  static __device__ __forceinline__ float to_float(unsigned short b) { return bf16_bits_to_float(b); }
  static __device__ __forceinline__ unsigned short from_float(float x) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
};
struct F16Bits {
  static __device__ __forceinline__ float to_float(unsigned short b) { return f16_bits_to_float(b); }
  static __device__ __forceinline__ unsigned short from_float(float x) { return __half_as_ushort(__float2half_rn(x)); }
};
template <>
struct GradLoad<__nv_bfloat16> : Half16Load<Bf16Bits> {};
template <>
struct GradLoad<__half> : Half16Load<F16Bits> {};

// The compute copy's stores (round to nearest even, as LibTorch's .to()).
template <class C>
struct CopyStore;
template <>
struct CopyStore<NoCopy> {
  static __device__ __forceinline__ void one(void*, int64_t, float) {}
  static __device__ __forceinline__ void four(void*, int64_t, const float4&) {}
};
template <class Convert>
struct Half16Store {
  static __device__ __forceinline__ void one(void* base, int64_t i, float x) {
    __stcs(static_cast<unsigned short*>(base) + i, Convert::from_float(x));
  }
  static __device__ __forceinline__ void four(void* base, int64_t i, const float4& p) {
    uint2 x;
    x.x = static_cast<unsigned int>(Convert::from_float(p.x)) | (static_cast<unsigned int>(Convert::from_float(p.y)) << 16);
    x.y = static_cast<unsigned int>(Convert::from_float(p.z)) | (static_cast<unsigned int>(Convert::from_float(p.w)) << 16);
    __stcs(reinterpret_cast<uint2*>(static_cast<unsigned short*>(base) + i), x);
  }
};
template <>
struct CopyStore<__nv_bfloat16> : Half16Store<Bf16Bits> {};
template <>
struct CopyStore<__half> : Half16Store<F16Bits> {};

// model/adamw.cpp's rule in fp32: the moments, then p += -step_size * m / (sqrt(v) + eps),
// then the decoupled decay p *= 1 - lr * wd.
__device__ __forceinline__ void adamw(float& p, float& m, float& v, float g, const UpdateParams& u, float step_size) {
  m = u.beta1f * m + u.one_minus_beta1 * g;
  v = u.beta2f * v + u.one_minus_beta2 * g * g;
  const float denominator = sqrtf(v) + u.eps;
  p = (p - step_size * (m / denominator)) * u.decay;
}

__global__ void increment_step_kernel(int64_t* step) { *step += 1; }

template <class G, class C>
__global__ void __launch_bounds__(kThreads) adamw_kernel(const __grid_constant__ GradTable table,
                                                         const __grid_constant__ UpdateParams u) {
  // Every block reads the counter the step kernel (queued before) incremented.
  __shared__ float shared_step_size;
  if (threadIdx.x == 0) {
    const double t = static_cast<double>(*u.step);
    shared_step_size = static_cast<float>(u.lr * sqrt(1.0 - pow(u.beta2, t)) / (1.0 - pow(u.beta1, t)));
  }
  __syncthreads();
  const float step_size = shared_step_size;

  const int64_t groups = table.first_group[table.count];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  int i = 0;  // the gradient owning group k; k only grows, so i only moves forward
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; k < groups; k += stride) {
    while (k >= table.first_group[i + 1]) ++i;
    const int64_t begin = table.begin[i], end = table.end[i];
    const int64_t e0 = (begin / kVec + (k - table.first_group[i])) * kVec;  // the group's first flat element
    const void* grad = table.grad[i];
    if (u.vector_ok && e0 >= begin && e0 + kVec <= end) {
      float4 p = __ldcs(reinterpret_cast<const float4*>(u.params + e0));
      float4 m = __ldcs(reinterpret_cast<const float4*>(u.exp_avg + e0));
      float4 v = __ldcs(reinterpret_cast<const float4*>(u.exp_avg_sq + e0));
      float g[kVec];
      if (table.grad_vector[i]) {
        GradLoad<G>::four(grad, e0 - begin, g);
      } else {
#pragma unroll
        for (int j = 0; j < kVec; ++j) g[j] = GradLoad<G>::one(grad, e0 - begin + j);
      }
      adamw(p.x, m.x, v.x, g[0], u, step_size);
      adamw(p.y, m.y, v.y, g[1], u, step_size);
      adamw(p.z, m.z, v.z, g[2], u, step_size);
      adamw(p.w, m.w, v.w, g[3], u, step_size);
      __stcs(reinterpret_cast<float4*>(u.params + e0), p);
      __stcs(reinterpret_cast<float4*>(u.exp_avg + e0), m);
      __stcs(reinterpret_cast<float4*>(u.exp_avg_sq + e0), v);
      CopyStore<C>::four(u.copy, e0, p);
    } else {
      // A range's first or last group (shared with a neighbour: only this range's elements are
      // touched), or buffers not aligned for vectors.
      for (int j = 0; j < kVec; ++j) {
        const int64_t e = e0 + j;
        if (e < begin || e >= end) continue;
        float p = u.params[e], m = u.exp_avg[e], v = u.exp_avg_sq[e];
        adamw(p, m, v, GradLoad<G>::one(grad, e - begin), u, step_size);
        u.params[e] = p;
        u.exp_avg[e] = m;
        u.exp_avg_sq[e] = v;
        CopyStore<C>::one(u.copy, e, p);
      }
    }
  }
}

// Blocks of one instantiation that stay resident on an SM (asked once a process).
template <class G, class C>
int resident_blocks() {
  static const int blocks = [] {
    int n = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, adamw_kernel<G, C>, kThreads, 0),
               "fused AdamW: cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return std::max(n, 1);
  }();
  return blocks;
}

template <class G, class C>
void launch(const GradTable& table, const UpdateParams& u, int multiprocessors, cudaStream_t stream) {
  const int64_t groups = table.first_group[table.count];
  if (groups == 0) return;
  const int64_t wanted = (groups + kThreads - 1) / kThreads;
  const int64_t resident = static_cast<int64_t>(multiprocessors) * resident_blocks<G, C>();
  const unsigned grid = static_cast<unsigned>(std::min(wanted, resident));
  adamw_kernel<G, C><<<grid, kThreads, 0, stream>>>(table, u);
  check_cuda(cudaGetLastError(), "fused AdamW: launching the AdamW kernel");
}

template <class G>
void launch_for_copy(ElementType copy_type, const GradTable& table, const UpdateParams& u, int multiprocessors,
                     cudaStream_t stream) {
  if (u.copy == nullptr) return launch<G, NoCopy>(table, u, multiprocessors, stream);
  if (copy_type == ElementType::bf16) return launch<G, __nv_bfloat16>(table, u, multiprocessors, stream);
  return launch<G, __half>(table, u, multiprocessors, stream);
}

void launch_table(ElementType grad_type, ElementType copy_type, const GradTable& table, const UpdateParams& u,
                  int multiprocessors, cudaStream_t stream) {
  switch (grad_type) {
    case ElementType::f32: return launch_for_copy<float>(copy_type, table, u, multiprocessors, stream);
    case ElementType::bf16: return launch_for_copy<__nv_bfloat16>(copy_type, table, u, multiprocessors, stream);
    case ElementType::f16: return launch_for_copy<__half>(copy_type, table, u, multiprocessors, stream);
  }
}

int64_t element_bytes(ElementType type) { return type == ElementType::f32 ? 4 : 2; }

bool aligned(const void* pointer, uintptr_t bytes) { return reinterpret_cast<uintptr_t>(pointer) % bytes == 0; }

// Appends gradient `g` to the table; its groups are those of the flat range it covers.
void append(GradTable& table, const FusedAdamWGrad& g) {
  const int i = table.count++;
  const int64_t begin = g.offset, end = g.offset + g.numel;
  table.grad[i] = g.data;
  table.begin[i] = begin;
  table.end[i] = end;
  table.first_group[i + 1] = table.first_group[i] + (end + kVec - 1) / kVec - begin / kVec;
  // The gradient element at the range's first kVec-aligned flat index must be kVec-aligned too.
  const int64_t bytes = element_bytes(g.type);
  const int64_t first_aligned = (kVec - begin % kVec) % kVec;
  table.grad_vector[i] = aligned(static_cast<const char*>(g.data) + first_aligned * bytes,
                                 static_cast<uintptr_t>(kVec * bytes))
                             ? 1
                             : 0;
}

}  // namespace

void fused_adamw_cuda(const FusedAdamWArgs& a, cudaStream_t stream) {
  if (a.step == nullptr) throw std::invalid_argument("fused AdamW: no step counter");
  if (a.compute_copy != nullptr && a.copy_type == ElementType::f32) {
    throw std::invalid_argument("fused AdamW: the compute copy must be bf16 or fp16");
  }
  int multiprocessors = a.multiprocessors;
  if (multiprocessors <= 0) {
    int device = 0;
    check_cuda(cudaGetDevice(&device), "fused AdamW: cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device),
               "fused AdamW: cudaDeviceGetAttribute(multiprocessors)");
  }
  // Its own kernel, so that no block of the update can read the counter before it moved.
  increment_step_kernel<<<1, 1, 0, stream>>>(a.step);
  check_cuda(cudaGetLastError(), "fused AdamW: launching the step counter's kernel");

  UpdateParams u{};
  u.params = a.params;
  u.exp_avg = a.exp_avg;
  u.exp_avg_sq = a.exp_avg_sq;
  u.copy = a.compute_copy;
  u.step = a.step;
  u.lr = a.lr;
  u.beta1 = a.beta1;
  u.beta2 = a.beta2;
  u.beta1f = static_cast<float>(a.beta1);
  u.one_minus_beta1 = static_cast<float>(1.0 - a.beta1);
  u.beta2f = static_cast<float>(a.beta2);
  u.one_minus_beta2 = static_cast<float>(1.0 - a.beta2);
  u.eps = static_cast<float>(a.eps);
  u.decay = static_cast<float>(1.0 - a.lr * a.weight_decay);
  u.vector_ok = aligned(a.params, 16) && aligned(a.exp_avg, 16) && aligned(a.exp_avg_sq, 16) &&
                (a.compute_copy == nullptr || aligned(a.compute_copy, 8));

  // One kernel instantiation per gradient type: the gradients of each type, kTable a launch.
  for (const ElementType type : {ElementType::f32, ElementType::bf16, ElementType::f16}) {
    GradTable table{};
    for (int64_t i = 0; i < a.grad_count; ++i) {
      const FusedAdamWGrad& g = a.grads[i];
      if (g.type != type || g.numel <= 0 || g.data == nullptr) continue;
      append(table, g);
      if (table.count == kTable) {
        launch_table(type, a.copy_type, table, u, multiprocessors, stream);
        table.count = 0;
      }
    }
    if (table.count > 0) launch_table(type, a.copy_type, table, u, multiprocessors, stream);
  }
}

}  // namespace stepscope::kernels
