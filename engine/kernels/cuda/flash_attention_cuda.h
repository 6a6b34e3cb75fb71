// FlashAttention-2 forward and backward on CUDA (sm_80 and newer). fp16/bf16 run on tensor
// cores with fp32 accumulation; fp32 runs in full fp32. Both throw std::runtime_error naming
// the problem: an unsupported shape (flash_shape_problem's sentence), bad views, or the CUDA
// call that failed. Work is queued on `stream`; errors inside running kernels surface later.
#pragma once

#include "kernels/flash_attention_args.h"

#include <cuda_runtime.h>

namespace stepscope::kernels {

// Writes O and lse (natural log, fp32, contiguous (batch, heads, seq_q)).
void flash_forward_cuda(const FlashForwardArgs& args, cudaStream_t stream);

// Writes dQ, dK, dV; uses args.workspace (flash_backward_workspace_floats floats, 16-byte
// aligned; zeroed by the backward's first kernel).
void flash_backward_cuda(const FlashBackwardArgs& args, cudaStream_t stream);

}  // namespace stepscope::kernels
