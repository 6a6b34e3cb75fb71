// Rotary position embedding on the fused q/k/v projection, as CUDA kernels with a plain C++
// launch API (no LibTorch). The rotation is the reference model's interleaved one: pairs
// (x[2i], x[2i+1]) of each head of q and k turn by the angle whose cosine and sine are the
// tables' entries [pos, i]; v is copied beside them. Math in fp32 whatever the element type,
// each product and sum rounded once as the LibTorch reference rounds it, the result rounded
// to the element type once.
//
// qkv rows are [q | k | v], each d_model = heads x head_dim wide, head-major inside.
// Both launchers throw std::runtime_error naming the problem (rope_shape_problem's sentence, a
// view the kernels cannot read, or the CUDA call that failed); work is queued on `stream`.
#pragma once

#include "kernels/flash_attention_args.h"  // ElementType

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace stepscope::kernels {

struct RopeShape {
  int64_t batch = 1;
  int64_t seq = 1;
  int64_t heads = 1;
  int64_t head_dim = 2;  // even
};

// cos and sin: fp32 tables of at least `seq` rows of head_dim / 2 entries, rows contiguous
// (row stride head_dim / 2).
struct RopeTables {
  const float* cos = nullptr;
  const float* sin = nullptr;
};

// Element strides of a (batch, heads, seq, head_dim) view; any values, the last one included.
struct RopeHeadStrides {
  int64_t batch = 0;
  int64_t head = 0;
  int64_t seq = 0;
  int64_t dim = 1;
};

// out [batch, seq, 3 * d_model] contiguous = qkv with q and k rotated. qkv is read through its
// batch and seq element strides; inside a row it is contiguous.
struct RopeQkvForwardArgs {
  RopeShape shape;
  ElementType type = ElementType::bf16;
  const void* qkv = nullptr;
  int64_t qkv_batch_stride = 0;
  int64_t qkv_seq_stride = 0;
  void* out = nullptr;
  RopeTables tables;
};

// d_qkv [batch, seq, 3 * d_model] contiguous = [rotate^T dq | rotate^T dk | dv], the three
// gradients read as (batch, heads, seq, head_dim) views of any strides, all of `type`.
struct RopeQkvBackwardArgs {
  RopeShape shape;
  ElementType type = ElementType::bf16;
  const void* dq = nullptr;
  const void* dk = nullptr;
  const void* dv = nullptr;
  RopeHeadStrides dq_strides, dk_strides, dv_strides;
  void* d_qkv = nullptr;
  RopeTables tables;
};

// Empty when the kernels take the shape, else a sentence saying why not.
std::string rope_shape_problem(const RopeShape& shape);

void rope_qkv_forward_cuda(const RopeQkvForwardArgs& args, cudaStream_t stream);
void rope_qkv_backward_cuda(const RopeQkvBackwardArgs& args, cudaStream_t stream);

}  // namespace stepscope::kernels
