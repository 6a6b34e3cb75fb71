// The row kernel behind the fused LM head + cross-entropy, in plain C++ (no LibTorch): one CUDA
// block per row of logits takes the row's log-sum-exp in fp32 with an online max/sum, writes the
// row's loss lse - logit[target] and, when grad_scale != 0, overwrites the row in place with
// (softmax - one_hot(target)) * grad_scale in the logits' own type.
//
// Rows whose target lies outside [0, vocab) are not read at the target: their loss is NaN and,
// when a gradient is asked for, their row of logits becomes NaN, so a bad token shows up as a NaN
// loss instead of an out-of-bounds access (the host never reads targets: that would wait for the
// GPU and break CUDA-graph capture).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/flash_attention_args.h"  // ElementType

namespace stepscope::kernels {

struct CrossEntropyRowsArgs {
  ElementType type = ElementType::bf16;
  int64_t rows = 0;
  int64_t vocab = 0;
  int64_t row_stride = 0;          // elements between rows' starts; elements of a row are contiguous
  void* logits = nullptr;          // [rows, vocab] through row_stride; read, and written when grad_scale != 0
  const int64_t* targets = nullptr;  // [rows], contiguous
  float* losses = nullptr;           // [rows], contiguous
  float grad_scale = 0;
};

// Queues the kernel on `stream`; throws std::runtime_error for arguments it cannot take or a
// failed launch. Nothing runs for rows == 0.
void cross_entropy_rows_cuda(const CrossEntropyRowsArgs& args, cudaStream_t stream);

// Threads per block the kernel runs with (one block per row).
constexpr int kCrossEntropyRowThreads = 256;

}  // namespace stepscope::kernels
