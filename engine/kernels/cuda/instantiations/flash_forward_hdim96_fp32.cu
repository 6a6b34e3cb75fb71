// Forward, head dim 96, fp32: the 3xTF32 tensor-core kernel (KernelPath::fastest) with its key
// splits, and the exact SIMT one (KernelPath::portable).
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_mma_launch.cuh"
#include "kernels/cuda/flash_simt_launch.cuh"

namespace stepscope::kernels::flash {

template KeySplitPlan forward_key_split_plan<float, 96>(const AttentionShape&, int);
template void launch_forward_mma<float, 96>(ForwardParams, const AttentionShape&, int, float*, cudaStream_t);
template void launch_forward_simt<96>(ForwardParams, const AttentionShape&, cudaStream_t);

}  // namespace stepscope::kernels::flash
