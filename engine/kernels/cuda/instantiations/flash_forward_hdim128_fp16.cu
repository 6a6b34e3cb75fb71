// Forward, head dim 128, fp16: the tensor-core kernel (sm_80+) and its key splits.
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_mma_launch.cuh"

namespace stepscope::kernels::flash {

template KeySplitPlan forward_key_split_plan<__half, 128>(const AttentionShape&, int);
template void launch_forward_mma<__half, 128>(ForwardParams, const AttentionShape&, int, float*,
                                              cudaStream_t);

}  // namespace stepscope::kernels::flash
