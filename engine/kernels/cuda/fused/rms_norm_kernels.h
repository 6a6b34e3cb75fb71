// RMSNorm's CUDA kernels behind a plain C++ launch API (no LibTorch): rows of d contiguous
// elements, fp32 statistics, y = x * inv_rms * weight written in any of fp32/bf16/fp16.
// Each thread keeps its share of a row in registers, so x (and dy) cross memory once: the
// forward moves rows * d * (x + y bytes), the backward rows * d * (x + dy + dx bytes), plus a
// small fp32 [blocks, d] partial dweight that stays in L2.
// Launchers throw std::runtime_error (bad sizes or a failed CUDA call); work is queued on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/flash_attention_args.h"  // ElementType

namespace stepscope::kernels {

// The largest row the kernels take for any alignment (a thread holds at most 16 elements of
// a row, and a row has at most 1024 threads); longer rows go to the LibTorch reference.
constexpr int64_t kRmsNormMaxD = 8192;

// x [rows, d] (x_type), weight [d] fp32 -> y [rows, d] (y_type) and inv_rms [rows] fp32,
// inv_rms = 1 / sqrt(mean(x^2) + eps). All contiguous; 16-byte aligned bases with d a multiple
// of 16 bytes' worth of x take the vectorised path, anything else the scalar one.
void rms_norm_forward_cuda(const void* x, ElementType x_type, const float* weight, void* y, ElementType y_type,
                           float* inv_rms, int64_t rows, int64_t d, float eps, cudaStream_t stream);

// fp32 elements of scratch the backward needs on the current device (16-byte aligned, need
// not be zeroed): one partial dweight row per block of the backward's grid.
int64_t rms_norm_backward_workspace_floats(int64_t rows, int64_t d);

// dy [rows, d] (dy_type), x [rows, d] (x_type), weight [d] fp32, inv_rms [rows] fp32 from the
// forward -> dx [rows, d] in x_type and dweight [d] fp32 (overwritten, summed in a fixed order:
// the result is the same bits on every run).
void rms_norm_backward_cuda(const void* dy, ElementType dy_type, const void* x, ElementType x_type,
                            const float* weight, const float* inv_rms, void* dx, float* dweight, float* workspace,
                            int64_t rows, int64_t d, cudaStream_t stream);

}  // namespace stepscope::kernels
