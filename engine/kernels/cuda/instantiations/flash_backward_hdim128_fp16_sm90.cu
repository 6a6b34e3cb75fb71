// Backward, head dim 128, fp16: the Hopper main kernel (sm_90a).
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_sm90_launch.cuh"

namespace stepscope::kernels::flash {

template void launch_backward_sm90<__half, 128>(BackwardParams, const FlashBackwardArgs&, cudaStream_t);
template bool sm90_backward_compiled<__half, 128>();

}  // namespace stepscope::kernels::flash
