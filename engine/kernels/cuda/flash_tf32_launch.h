// Launchers of the fp32 tensor-core (3xTF32) flash kernels, in their own translation unit so
// the fp32 and 16-bit kernels compile in parallel. The backward launcher runs only the main
// kernel; flash_backward.cu runs the helpers around it as for every other main kernel.
#pragma once

#include "kernels/cuda/flash_key_splits.h"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/flash_attention_args.h"

#include <cuda_runtime.h>

namespace stepscope::kernels::flash {

// The key splits the fp32 forward takes for `shape` (`requested` as plan_key_splits), and its
// launch with them when `workspace` holds their chunks.
KeySplitPlan tf32x3_forward_key_split_plan(const AttentionShape& shape, int requested);
void launch_forward_tf32x3(ForwardParams params, const AttentionShape& shape, int requested_splits, float* workspace,
                           cudaStream_t stream);
// BackwardParams::query_splits for the fp32 main kernel: set it before the rowsum kernel runs.
int tf32x3_backward_query_splits(const AttentionShape& shape);
void launch_backward_main_tf32x3(BackwardParams params, const AttentionShape& shape,
                                 cudaStream_t stream);

}  // namespace stepscope::kernels::flash
