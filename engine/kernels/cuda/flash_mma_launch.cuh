// Launchers of the tensor-core flash kernels for one input type and padded head dim (declared
// in flash_variants.h), instantiated one variant a translation unit under instantiations/.
#pragma once

#include "kernels/cuda/flash_backward_mma.cuh"
#include "kernels/cuda/flash_forward_mma.cuh"
#include "kernels/cuda/flash_key_splits.h"
#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/cuda/flash_variants.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace stepscope::kernels::flash {

// CTAs of the unsplit forward kernel one SM holds (shared memory and registers), asked once.
template <typename T, int kHeadDim>
int forward_ctas_per_sm() {
  static const int per_sm = [] {
    using Tr = TensorCoreForwardTraits<T, kHeadDim>;
    const auto kernel = flash_forward_mma_kernel<T, kHeadDim>;
    if (Tr::kSmemBytes > 48 * 1024) {
      check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(Tr::kSmemBytes)),
                 "cudaFuncSetAttribute(max dynamic shared memory) for flash_forward_mma_kernel");
    }
    int ctas = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, kernel, Tr::kThreads, Tr::kSmemBytes),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor(flash_forward_mma_kernel)");
    return std::max(ctas, 1);
  }();
  return per_sm;
}

// The key splits (flash_key_splits.h) of this shape on the current device; `requested` as there.
template <typename T, int kHeadDim>
KeySplitPlan forward_key_split_plan(const AttentionShape& shape, int requested) {
  using Tr = TensorCoreForwardTraits<T, kHeadDim>;
  const int64_t slots = static_cast<int64_t>(check_device_supported(Tr::kSmemBytes)) * forward_ctas_per_sm<T, kHeadDim>();
  return plan_key_splits({shape, Tr::kBlockM, Tr::kBlockN, Tr::kMinSplitKeys}, slots, requested);
}

// One CTA per (query tile, batch*head), or with key splits per chunk of its walk and then the
// combine kernel (`workspace` holds the chunks; without one nothing is split). fp32 grids that
// leave SMs idle split K/V once per CTA (Tf32ForwardTraits), which shortens each CTA's walk at
// the cost of its second CTA per SM.
template <typename T, int kHeadDim>
void launch_forward_mma(ForwardParams params, const AttentionShape& shape, int requested_splits, float* workspace,
                        cudaStream_t stream) {
  using Tr = TensorCoreForwardTraits<T, kHeadDim>;
  params.row_tiles = static_cast<int>((shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM);
  const int sms = check_device_supported(Tr::kSmemBytes);
  params.head_group = ungrouped_head_group(static_cast<int>(shape.batch * shape.heads), shape.causal);
  const auto blocks = static_cast<unsigned>(params.row_tiles * shape.batch * shape.heads);
  const KeySplitPlan plan = workspace != nullptr ? forward_key_split_plan<T, kHeadDim>(shape, requested_splits)
                                                 : KeySplitPlan{};
  const dim3 grid(blocks, static_cast<unsigned>(plan.splits));
  if (plan.splits > 1) {
    params.split_tiles = plan.tiles_per_split;
    params.rows = shape.batch * shape.heads * shape.seq_q;
    params.block_m = Tr::kBlockM;
    params.block_n = Tr::kBlockN;
    params.partial_o = workspace;
    params.partial_lse = workspace + static_cast<int64_t>(plan.splits) * params.rows * partial_row_floats(shape.head_dim);
  }
  bool split_kv = false;
  if constexpr (std::is_same_v<T, float>) {
    using Split = TensorCoreForwardTraits<T, kHeadDim, true>;
    split_kv = static_cast<int64_t>(blocks) * plan.splits <= sms;
    if (split_kv) {
      check_device_supported(Split::kSmemBytes);
      launch_kernel(flash_forward_mma_kernel<T, kHeadDim, true>, grid, Split::kThreads, Split::kSmemBytes, stream,
                    params, "flash_forward_mma_kernel (fp32, split K/V)");
    }
  }
  if (!split_kv) {
    launch_kernel(flash_forward_mma_kernel<T, kHeadDim>, grid, Tr::kThreads, Tr::kSmemBytes, stream, params,
                  "flash_forward_mma_kernel");
  }
  if (plan.splits > 1) launch_forward_combine<T>(params, shape, stream);
}

// How many CTAs share each key tile's walk over the query tiles: enough to fill the GPU's
// CTA slots when the (key tile, batch*head) grid leaves them idle, each with at least two query
// tiles. The one-head fp32 grids (16 CTAs at s1024) took as long as their longest walk.
template <typename T, int kHeadDim>
int backward_query_splits(const AttentionShape& shape) {
  if constexpr (!std::is_same_v<T, float>) {
    return 1;  // 16-bit dK, dV are not added atomically
  } else {
    using Tr = TensorCoreBackwardTraits<T, kHeadDim>;
    const int per_sm = std::clamp(sm90_ctas_by_smem(Tr::kSmemBytes), 1, 2);
    const int64_t slots = static_cast<int64_t>(check_device_supported(Tr::kSmemBytes)) * per_sm;
    const int64_t ctas = (shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN * shape.batch * shape.heads;
    const int64_t query_tiles = (shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM;
    const int64_t wanted = (slots + ctas - 1) / ctas;
    return static_cast<int>(std::clamp<int64_t>(std::min(wanted, query_tiles / 2), 1, 65535));
  }
}

// The backward's main kernel, one CTA per (key tile, batch*head) and query split;
// flash_backward.cu runs the helpers around it (and sets params.query_splits before them).
template <typename T, int kHeadDim>
void launch_backward_main_mma(BackwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = TensorCoreBackwardTraits<T, kHeadDim>;
  check_device_supported(Tr::kSmemBytes);
  params.key_tiles = static_cast<int>((shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN);
  params.head_group = ungrouped_head_group(static_cast<int>(shape.batch * shape.heads), shape.causal);
  const dim3 blocks(static_cast<unsigned>(params.key_tiles * shape.batch * shape.heads),
                    static_cast<unsigned>(params.query_splits));
  launch_kernel(flash_backward_mma_kernel<T, kHeadDim>, blocks, Tr::kThreads, Tr::kSmemBytes, stream, params,
                "flash_backward_mma_kernel");
}

}  // namespace stepscope::kernels::flash
