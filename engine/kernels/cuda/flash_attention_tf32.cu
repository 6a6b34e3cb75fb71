// Host side of the fp32 tensor-core (3xTF32) flash kernels: tiles per padded head dim, grids
// as the 16-bit portable kernels'.
#include "kernels/cuda/flash_backward_tf32.cuh"
#include "kernels/cuda/flash_forward_tf32.cuh"
#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/cuda/flash_tf32_launch.h"

namespace stepscope::kernels::flash {

namespace {

template <int kHeadDim>
void forward(ForwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = Tf32ForwardTraits<kHeadDim>;
  params.row_tiles = static_cast<int>((shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM);
  check_device_supported(Tr::kSmemBytes);
  const auto blocks = static_cast<unsigned>(params.row_tiles * shape.batch * shape.heads);
  launch_kernel(flash_forward_tf32_kernel<kHeadDim>, blocks, Tr::kThreads, Tr::kSmemBytes, stream,
                params, "flash_forward_tf32_kernel (fp32, 3xTF32)");
}

template <int kHeadDim>
void backward(BackwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = Tf32BackwardTraits<kHeadDim>;
  params.key_tiles = static_cast<int>((shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN);
  params.head_group = backward_grid_head_group(params.key_tiles, shape, Tr::kSmemBytes);
  const auto blocks = static_cast<unsigned>(params.key_tiles * shape.batch * shape.heads);
  launch_kernel(flash_backward_tf32_kernel<kHeadDim>, blocks, Tr::kThreads, Tr::kSmemBytes, stream,
                params, "flash_backward_tf32_kernel (fp32, 3xTF32)");
}

}  // namespace

void launch_forward_tf32x3(ForwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  switch (padded_head_dim(params.head_dim)) {
    case 32: return forward<32>(params, shape, stream);
    case 64: return forward<64>(params, shape, stream);
    case 96: return forward<96>(params, shape, stream);
    default: return forward<128>(params, shape, stream);
  }
}

void launch_backward_main_tf32x3(BackwardParams params, const AttentionShape& shape,
                                 cudaStream_t stream) {
  switch (padded_head_dim(params.head_dim)) {
    case 32: return backward<32>(params, shape, stream);
    case 64: return backward<64>(params, shape, stream);
    case 96: return backward<96>(params, shape, stream);
    default: return backward<128>(params, shape, stream);
  }
}

}  // namespace stepscope::kernels::flash
