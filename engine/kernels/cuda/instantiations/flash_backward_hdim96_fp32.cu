// Backward, head dim 96, fp32: the 3xTF32 tensor-core main kernel (KernelPath::fastest) and
// the exact SIMT one (KernelPath::portable).
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_mma_launch.cuh"
#include "kernels/cuda/flash_simt_launch.cuh"

namespace stepscope::kernels::flash {

template int backward_query_splits<float, 96>(const AttentionShape&);
template void launch_backward_main_mma<float, 96>(BackwardParams, const AttentionShape&, cudaStream_t);
template void launch_backward_simt<96>(BackwardParams, const AttentionShape&, cudaStream_t);

}  // namespace stepscope::kernels::flash
