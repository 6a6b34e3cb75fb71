// Backward, fp16: the Hopper main kernels (sm_90a), head dims 64 and 128 together. Alone in its
// unit, nvcc gives the d128 kernel about 30 more integer instructions and it runs ~1 % slower
// on an H100 (docs/results/2026-11-27-h100-flash-units); beside another variant it gets the
// code it had when every backward kernel shared one file.
#include "kernels/cuda/flash_sm90_launch.cuh"

namespace stepscope::kernels::flash {

template void launch_backward_sm90<__half, 64>(BackwardParams, const FlashBackwardArgs&, cudaStream_t);
template bool sm90_backward_compiled<__half, 64>();
template void launch_backward_sm90<__half, 128>(BackwardParams, const FlashBackwardArgs&, cudaStream_t);
template bool sm90_backward_compiled<__half, 128>();

}  // namespace stepscope::kernels::flash
