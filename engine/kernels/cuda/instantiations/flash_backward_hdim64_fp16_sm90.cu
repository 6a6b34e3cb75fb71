// Backward, head dim 64, fp16: the Hopper main kernels (sm_90a; one key tile a CTA, and paired).
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_sm90_launch.cuh"

namespace stepscope::kernels::flash {

template void launch_backward_sm90<__half, 64>(BackwardParams, const FlashBackwardArgs&, cudaStream_t);
template bool sm90_backward_compiled<__half, 64>();

}  // namespace stepscope::kernels::flash
