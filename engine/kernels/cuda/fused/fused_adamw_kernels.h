// AdamW over one flat fp32 buffer of parameters on CUDA, in plain C++ (no LibTorch): a tiny
// kernel adds one to the step counter on the device, then one multi-tensor kernel per group of
// up to kFusedAdamWTableSize gradients of one type reads param, grad, m, v once and writes
// param, m, v (and the bf16/fp16 copy) once. No host synchronisation and no allocation, so the
// launches can be captured in a CUDA graph and replayed: the table of gradient pointers is a
// kernel parameter, captured by value.
#pragma once

#include "kernels/flash_attention_args.h"  // ElementType

#include <cuda_runtime.h>

#include <cstdint>

namespace stepscope::kernels {

// Gradients one launch takes; more are updated by further launches of the same kind.
constexpr int kFusedAdamWTableSize = 96;

// One gradient: `numel` contiguous elements of `type` covering params[offset, offset + numel).
struct FusedAdamWGrad {
  const void* data = nullptr;
  ElementType type = ElementType::f32;
  int64_t offset = 0;
  int64_t numel = 0;
};

struct FusedAdamWArgs {
  // Flat fp32 [numel] buffers on the current device, updated in place.
  float* params = nullptr;
  float* exp_avg = nullptr;
  float* exp_avg_sq = nullptr;
  int64_t numel = 0;
  // Null, or [numel] elements of copy_type (bf16 or f16) written with the updated parameters
  // where a gradient covers them.
  void* compute_copy = nullptr;
  ElementType copy_type = ElementType::bf16;
  // int64 [1] on the device: incremented before the update, read by every block for the bias
  // corrections (computed in double).
  int64_t* step = nullptr;
  // Host array of grad_count gradients; ranges must not overlap. Empty ranges are skipped.
  const FusedAdamWGrad* grads = nullptr;
  int64_t grad_count = 0;
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
  // Streaming multiprocessors of the current device (sizes the grid); 0 asks the runtime.
  int multiprocessors = 0;
};

// Queues the step increment and the update kernels on `stream`. Throws std::runtime_error naming
// the CUDA call that failed, or std::invalid_argument for an unsupported gradient/copy type.
void fused_adamw_cuda(const FusedAdamWArgs& args, cudaStream_t stream);

}  // namespace stepscope::kernels
