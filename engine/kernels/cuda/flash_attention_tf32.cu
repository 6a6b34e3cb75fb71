// Host side of the fp32 tensor-core (3xTF32) flash kernels: the tensor-core kernels
// instantiated for float, per padded head dim.
#include "kernels/cuda/flash_mma_launch.cuh"
#include "kernels/cuda/flash_tf32_launch.h"

namespace stepscope::kernels::flash {

KeySplitPlan tf32x3_forward_key_split_plan(const AttentionShape& shape, int requested) {
  switch (padded_head_dim(static_cast<int>(shape.head_dim))) {
    case 32: return forward_key_split_plan<float, 32>(shape, requested);
    case 64: return forward_key_split_plan<float, 64>(shape, requested);
    case 96: return forward_key_split_plan<float, 96>(shape, requested);
    default: return forward_key_split_plan<float, 128>(shape, requested);
  }
}

void launch_forward_tf32x3(ForwardParams params, const AttentionShape& shape, int requested_splits, float* workspace,
                           cudaStream_t stream) {
  switch (padded_head_dim(params.head_dim)) {
    case 32: return launch_forward_mma<float, 32>(params, shape, requested_splits, workspace, stream);
    case 64: return launch_forward_mma<float, 64>(params, shape, requested_splits, workspace, stream);
    case 96: return launch_forward_mma<float, 96>(params, shape, requested_splits, workspace, stream);
    default: return launch_forward_mma<float, 128>(params, shape, requested_splits, workspace, stream);
  }
}

int tf32x3_backward_query_splits(const AttentionShape& shape) {
  switch (padded_head_dim(static_cast<int>(shape.head_dim))) {
    case 32: return backward_query_splits<float, 32>(shape);
    case 64: return backward_query_splits<float, 64>(shape);
    case 96: return backward_query_splits<float, 96>(shape);
    default: return backward_query_splits<float, 128>(shape);
  }
}

void launch_backward_main_tf32x3(BackwardParams params, const AttentionShape& shape,
                                 cudaStream_t stream) {
  switch (padded_head_dim(params.head_dim)) {
    case 32: return launch_backward_main_mma<float, 32>(params, shape, stream);
    case 64: return launch_backward_main_mma<float, 64>(params, shape, stream);
    case 96: return launch_backward_main_mma<float, 96>(params, shape, stream);
    default: return launch_backward_main_mma<float, 128>(params, shape, stream);
  }
}

}  // namespace stepscope::kernels::flash
