// Forward, head dim 64, bf16: the Hopper kernels (sm_90a; one CTA a tile, and persistent).
// One variant a translation unit, so that nvcc compiles them in parallel (flash_variants.h).
#include "kernels/cuda/flash_sm90_launch.cuh"

namespace stepscope::kernels::flash {

template void launch_forward_sm90<__nv_bfloat16, 64>(const FlashForwardArgs&, cudaStream_t);
template bool sm90_forward_compiled<__nv_bfloat16, 64>();

}  // namespace stepscope::kernels::flash
