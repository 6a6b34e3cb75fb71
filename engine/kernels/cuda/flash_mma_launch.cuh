// Launchers of the tensor-core flash kernels for one input type and padded head dim, shared by
// the 16-bit translation units (flash_forward.cu, flash_backward.cu) and the fp32 one
// (flash_attention_tf32.cu), which compile in parallel.
#pragma once

#include "kernels/cuda/flash_backward_mma.cuh"
#include "kernels/cuda/flash_forward_mma.cuh"
#include "kernels/cuda/flash_launch_utils.h"

namespace stepscope::kernels::flash {

// One CTA per (query tile, batch*head).
template <typename T, int kHeadDim>
void launch_forward_mma(ForwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = TensorCoreForwardTraits<T, kHeadDim>;
  params.row_tiles = static_cast<int>((shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM);
  check_device_supported(Tr::kSmemBytes);
  const auto blocks = static_cast<unsigned>(params.row_tiles * shape.batch * shape.heads);
  launch_kernel(flash_forward_mma_kernel<T, kHeadDim>, blocks, Tr::kThreads, Tr::kSmemBytes, stream, params,
                "flash_forward_mma_kernel");
}

// The backward's main kernel, one CTA per (key tile, batch*head); flash_backward.cu runs the
// helpers around it.
template <typename T, int kHeadDim>
void launch_backward_main_mma(BackwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = TensorCoreBackwardTraits<T, kHeadDim>;
  params.key_tiles = static_cast<int>((shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN);
  params.head_group = backward_grid_head_group(params.key_tiles, shape, Tr::kSmemBytes);
  const auto blocks = static_cast<unsigned>(params.key_tiles * shape.batch * shape.heads);
  launch_kernel(flash_backward_mma_kernel<T, kHeadDim>, blocks, Tr::kThreads, Tr::kSmemBytes, stream, params,
                "flash_backward_mma_kernel");
}

}  // namespace stepscope::kernels::flash
