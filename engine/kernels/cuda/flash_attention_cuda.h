// FlashAttention-2 forward and backward on CUDA (sm_80 and newer). fp16/bf16 run on tensor
// cores with fp32 accumulation; fp32 runs in full fp32. Both throw std::runtime_error naming
// the problem: an unsupported shape (flash_shape_problem's sentence), bad views, or the CUDA
// call that failed. Work is queued on `stream`; errors inside running kernels surface later.
#pragma once

#include "kernels/flash_attention_args.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace stepscope::kernels {

// Writes O and lse (natural log, fp32, contiguous (batch, heads, seq_q)). With args.workspace
// (flash_forward_workspace_floats(args) floats for these args, 16-byte aligned) grids that leave
// the GPU's CTA slots idle split each query tile's walk over the keys and combine the chunks.
// The Hopper kernel needs no workspace: it runs persistent CTAs where forward_runs_persistent
// (flash_grid_order.h) says so, with a tile counter of the stream's (flash_tile_counters.h).
void flash_forward_cuda(const FlashForwardArgs& args, cudaStream_t stream);

// fp32 elements of scratch the forward would use for `args` on the current device (0: none);
// args.workspace itself is not read.
int64_t flash_forward_workspace_floats(const FlashForwardArgs& args);

// Writes dQ, dK, dV; uses args.workspace (flash_backward_workspace_floats floats, 16-byte
// aligned; zeroed by the backward's first kernel).
void flash_backward_cuda(const FlashBackwardArgs& args, cudaStream_t stream);

}  // namespace stepscope::kernels
