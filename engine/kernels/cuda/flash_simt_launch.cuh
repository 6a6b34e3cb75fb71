// Launchers of the exact fp32 (SIMT) flash kernels, KernelPath::portable, for one padded head
// dim (declared in flash_variants.h), instantiated one variant a translation unit under
// instantiations/.
#pragma once

#include "kernels/cuda/flash_backward_simt.cuh"
#include "kernels/cuda/flash_forward_simt.cuh"
#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/cuda/flash_variants.h"

namespace stepscope::kernels::flash {

// One CTA per (query tile, batch*head).
template <int kHeadDim>
void launch_forward_simt(ForwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = SimtForwardTraits<kHeadDim>;
  params.row_tiles = static_cast<int>((shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM);
  check_device_supported(Tr::kSmemBytes);
  params.head_group = ungrouped_head_group(static_cast<int>(shape.batch * shape.heads), shape.causal);
  const auto blocks = static_cast<unsigned>(params.row_tiles * shape.batch * shape.heads);
  launch_kernel(flash_forward_simt_kernel<kHeadDim>, blocks, Tr::kThreads, Tr::kSmemBytes, stream, params,
                "flash_forward_simt_kernel (fp32)");
}

// One CTA per (key tile, batch*head), between the helpers.
template <int kHeadDim>
void launch_backward_simt(BackwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = SimtBackwardTraits<kHeadDim>;
  check_device_supported(Tr::kSmemBytes);
  params.key_tiles = static_cast<int>((shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN);
  params.head_group = ungrouped_head_group(static_cast<int>(shape.batch * shape.heads), shape.causal);
  launch_backward_helpers_before<float>(params, stream);
  const auto blocks = static_cast<unsigned>(params.key_tiles * shape.batch * shape.heads);
  launch_kernel(flash_backward_simt_kernel<kHeadDim>, blocks, Tr::kThreads, Tr::kSmemBytes, stream, params,
                "flash_backward_simt_kernel (fp32)");
  launch_backward_helpers_after<float>(params, stream);
}

}  // namespace stepscope::kernels::flash
