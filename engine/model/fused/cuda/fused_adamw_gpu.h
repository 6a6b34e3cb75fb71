// The fused AdamW kernels called with LibTorch tensors on the current stream.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "model/adamw.h"

namespace stepscope::fused {

// fused_adamw_update's contract, the arguments already checked (fused_adamw.cpp): queues the
// step increment and the update on the current CUDA stream of params' device; no host
// synchronisation, so it can be captured in a CUDA graph.
void fused_adamw_update_gpu(const at::Tensor& params, const std::vector<at::Tensor>& grads,
                            const std::vector<int64_t>& offsets, const at::Tensor& m, const at::Tensor& v,
                            const at::Tensor& step, const at::Tensor& compute_copy, const AdamWOptions& options);

}  // namespace stepscope::fused
