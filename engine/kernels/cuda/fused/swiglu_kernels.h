// SwiGLU's gate as CUDA kernels behind a plain C++ launch API (no LibTorch). ab holds rows of
// [a | b], each half d_ff contiguous elements; y = silu(a) * b in fp32, stored in ab's type.
// Elementwise and memory-bound: the forward moves 3 * rows * d_ff elements, the backward 5
// (a, b, dy in; d_a, d_b out). Launchers throw std::runtime_error for bad sizes or a failed CUDA
// call; work is queued on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/flash_attention_args.h"  // ElementType

namespace stepscope::kernels {

// ab [rows, 2 * d_ff] -> y [rows, d_ff], both `type`, contiguous.
void swiglu_forward_cuda(const void* ab, void* y, ElementType type, int64_t rows, int64_t d_ff, cudaStream_t stream);

// dy [rows, d_ff] (dy_type), ab [rows, 2 * d_ff] (type) -> d_ab [rows, 2 * d_ff] (type):
// d_a = dy * b * s * (1 + a * (1 - s)) with s = sigmoid(a), d_b = dy * silu(a).
void swiglu_backward_cuda(const void* dy, ElementType dy_type, const void* ab, void* d_ab, ElementType type,
                          int64_t rows, int64_t d_ff, cudaStream_t stream);

}  // namespace stepscope::kernels
