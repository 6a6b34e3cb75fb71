// Host-side pieces of the kernel self-check: checked CUDA calls, device buffers, element
// types encoded as the kernels store them (rounded as the kernels see them), and the tensor
// layouts the check covers. Included by flash_kernel_check.cu only.
#pragma once

#include "kernels/flash_attention_args.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace flash_check {

using namespace stepscope::kernels;

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

const char* type_name(ElementType type) {
  return type == ElementType::f32 ? "f32" : type == ElementType::f16 ? "f16" : "bf16";
}

const char* path_name(KernelPath path) {
  return path == KernelPath::fastest ? "fastest" : "portable";
}

// Both paths on every GPU: `fastest` differs for fp32 everywhere (3xTF32 against SIMT) and for
// fp16/bf16 on Hopper (wgmma against mma.sync).
std::vector<KernelPath> kernel_paths() { return {KernelPath::fastest, KernelPath::portable}; }

size_t element_bytes(ElementType type) { return type == ElementType::f32 ? 4 : 2; }

// Tolerances on max |gpu - reference| / max |reference|. fp32 runs exact fp32 FFMA (portable) or
// 3xTF32 (fastest, products to ~2^-21 relative), so summation order and those products differ
// (~1e-6). fp16/bf16 inputs are rounded before the reference sees them,
// so what remains is the kernels' own rounding: P (and dS in the backward) rounded to the type
// before the second product, and the outputs rounded to the type: a few units of 2^-11 (fp16)
// or 2^-8 (bf16) relative to the largest value, more for gradients, which sum many rounded
// terms and use the rounded O for rowsum(dO * O). lse stays in fp32 in every path, with
// scores from exact products of the rounded inputs accumulated in fp32.
struct Tolerance {
  double output;
  double lse;
  double gradient;
};

// fp32 on the fastest path: 3xTF32 products are exact to ~2^-21 (against fp32 FFMA's 2^-24), and
// the outputs measured ~6x the portable path's errors (O up to 1.1e-5 at seq_k 1000).
Tolerance tolerance_for(ElementType type, KernelPath path) {
  switch (type) {
    case ElementType::f32:
      return path == KernelPath::fastest ? Tolerance{5e-5, 1e-5, 1e-4} : Tolerance{1e-5, 1e-5, 1e-4};
    case ElementType::f16: return {2e-3, 1e-4, 1e-2};
    case ElementType::bf16: return {1.6e-2, 1e-4, 5e-2};
  }
  return {0, 0, 0};
}

float round_to(ElementType type, float x) {
  switch (type) {
    case ElementType::f32: return x;
    case ElementType::f16: return __half2float(__float2half_rn(x));
    case ElementType::bf16: return __bfloat162float(__float2bfloat16_rn(x));
  }
  return x;
}

std::vector<unsigned char> encode(ElementType type, const std::vector<float>& values) {
  std::vector<unsigned char> bytes(values.size() * element_bytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == ElementType::f32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
    } else if (type == ElementType::f16) {
      const __half h = __float2half_rn(values[i]);
      std::memcpy(&bytes[i * 2], &h, 2);
    } else {
      const __nv_bfloat16 h = __float2bfloat16_rn(values[i]);
      std::memcpy(&bytes[i * 2], &h, 2);
    }
  }
  return bytes;
}

std::vector<float> decode(ElementType type, const std::vector<unsigned char>& bytes) {
  std::vector<float> values(bytes.size() / element_bytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == ElementType::f32) {
      std::memcpy(&values[i], &bytes[i * 4], 4);
    } else if (type == ElementType::f16) {
      __half h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = __half2float(h);
    } else {
      __nv_bfloat16 h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = __bfloat162float(h);
    }
  }
  return values;
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    check_cuda(cudaMalloc(&ptr_, std::max<size_t>(bytes, 16)), "cudaMalloc");
    // All-ones bytes are NaN in fp32, fp16 and bf16: anything the kernels fail to write shows.
    check_cuda(cudaMemset(ptr_, 0xff, std::max<size_t>(bytes, 16)), "cudaMemset");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }
  void* get() const { return ptr_; }
  void upload(const std::vector<unsigned char>& bytes) {
    check_cuda(cudaMemcpy(ptr_, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), "upload");
  }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> bytes(bytes_);
    check_cuda(cudaMemcpy(bytes.data(), ptr_, bytes_, cudaMemcpyDeviceToHost), "download");
    return bytes;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

AttentionShape make_shape(int64_t batch, int64_t heads, int64_t seq_q, int64_t seq_k,
                          int64_t head_dim, bool causal) {
  AttentionShape s;
  s.batch = batch;
  s.heads = heads;
  s.seq_q = seq_q;
  s.seq_k = seq_k;
  s.head_dim = head_dim;
  s.causal = causal;
  return s;
}

enum class Layout { contiguous, interleaved, padded_rows };

const char* layout_name(Layout layout) {
  return layout == Layout::contiguous    ? "contiguous"
         : layout == Layout::interleaved ? "interleaved(b,s,h,d)"
                                         : "padded-rows(misaligned)";
}

// contiguous: (b, h, s, d). interleaved: (b, s, h, d) memory seen as (b, h, s, d).
// padded_rows: rows d+4 elements apart, which breaks 16-byte alignment for 2-byte types.
Strides make_strides(const AttentionShape& shape, int64_t seq, Layout layout) {
  const int64_t d = shape.head_dim;
  Strides s;
  switch (layout) {
    case Layout::contiguous:
      s.row = d;
      s.head = seq * d;
      s.batch = shape.heads * seq * d;
      break;
    case Layout::interleaved:
      s.row = shape.heads * d;
      s.head = d;
      s.batch = seq * shape.heads * d;
      break;
    case Layout::padded_rows:
      s.row = d + 4;
      s.head = seq * s.row;
      s.batch = shape.heads * s.head;
      break;
  }
  return s;
}

int64_t view_elements(const AttentionShape& shape, int64_t seq, const Strides& s) {
  return (shape.batch - 1) * s.batch + (shape.heads - 1) * s.head + (seq - 1) * s.row +
         shape.head_dim;
}

}  // namespace flash_check
