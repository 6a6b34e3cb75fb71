// Forward, head dim 64, fp16: the Hopper kernels (sm_90a; one CTA a tile, and persistent).
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_sm90_launch.cuh"

namespace stepscope::kernels::flash {

template void launch_forward_sm90<__half, 64>(const FlashForwardArgs&, cudaStream_t);
template bool sm90_forward_compiled<__half, 64>();

}  // namespace stepscope::kernels::flash
