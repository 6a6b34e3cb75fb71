// Backward, head dim 32, bf16: the tensor-core main kernel (sm_80+).
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_mma_launch.cuh"

namespace stepscope::kernels::flash {

template void launch_backward_main_mma<__nv_bfloat16, 32>(BackwardParams, const AttentionShape&, cudaStream_t);

}  // namespace stepscope::kernels::flash
