// The cross-entropy row kernel called with LibTorch tensors on the current stream (CUDA builds).
#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// cross_entropy_rows for CUDA tensors whose shapes and types cross_entropy_rows has checked:
// logits [rows, vocab] fp32/bf16/fp16, targets [rows] int64, losses [rows] fp32, one device.
// Logits whose last dimension is strided, or losses that are not contiguous, go through a
// contiguous copy that is written back.
void cross_entropy_rows_gpu(at::Tensor& logits, const at::Tensor& targets, at::Tensor& losses, double grad_scale);

}  // namespace stepscope::fused
