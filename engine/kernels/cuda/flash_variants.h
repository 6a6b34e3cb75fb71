// The launchers of the flash kernels for one element type and padded head dim. Each
// (direction, head dim, type) is explicitly instantiated in a translation unit of its own under
// instantiations/, as FlashAttention does, so that nvcc compiles the variants in parallel. The
// dispatchers (flash_forward.cu, flash_backward.cu) see only these declarations, so they
// instantiate no variant's kernel themselves.
// Definitions: flash_mma_launch.cuh (tensor cores), flash_simt_launch.cuh (fp32 SIMT) and
// flash_sm90_launch.cuh (Hopper); the helper kernels that every head dim shares are defined and
// instantiated once, in the dispatchers.
#pragma once

#include "kernels/cuda/flash_key_splits.h"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/flash_attention_args.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace stepscope::kernels::flash {

// Forward. T: __half, __nv_bfloat16, or float for the 3xTF32 kernels.
template <typename T, int kHeadDim>
KeySplitPlan forward_key_split_plan(const AttentionShape& shape, int requested);
template <typename T, int kHeadDim>
void launch_forward_mma(ForwardParams params, const AttentionShape& shape, int requested_splits, float* workspace,
                        cudaStream_t stream);
template <int kHeadDim>
void launch_forward_simt(ForwardParams params, const AttentionShape& shape, cudaStream_t stream);
// Hopper (kHeadDim 64 or 128, 16-bit T); whether this build's image of its kernels for the
// device is the sm_90a one.
template <typename T, int kHeadDim>
void launch_forward_sm90(const FlashForwardArgs& args, cudaStream_t stream);
template <typename T, int kHeadDim>
bool sm90_forward_compiled();
// The key splits' combine kernel, one per T for every head dim (flash_forward.cu).
template <typename T>
void launch_forward_combine(const ForwardParams& params, const AttentionShape& shape, cudaStream_t stream);

// Backward. The main kernels; the helpers around them (D = rowsum(dO * O) first, dQ's
// conversion last) are one per T for every head dim (flash_backward.cu).
template <typename T, int kHeadDim>
int backward_query_splits(const AttentionShape& shape);
template <typename T, int kHeadDim>
void launch_backward_main_mma(BackwardParams params, const AttentionShape& shape, cudaStream_t stream);
template <typename T>
void launch_backward_helpers_before(const BackwardParams& params, cudaStream_t stream);
template <typename T>
void launch_backward_helpers_after(const BackwardParams& params, cudaStream_t stream);
// These two run the helpers around their main kernel.
template <int kHeadDim>
void launch_backward_simt(BackwardParams params, const AttentionShape& shape, cudaStream_t stream);
template <typename T, int kHeadDim>
void launch_backward_sm90(BackwardParams params, const FlashBackwardArgs& args, cudaStream_t stream);
template <typename T, int kHeadDim>
bool sm90_backward_compiled();

}  // namespace stepscope::kernels::flash
