// Host launcher of the flash-attention forward: validates the arguments, picks the kernel for
// the element type and padded head dim, and launches one CTA per (query tile, batch*head).
#include "kernels/cuda/flash_attention_cuda.h"
#include "kernels/cuda/flash_forward_mma.cuh"
#include "kernels/cuda/flash_forward_simt.cuh"
#include "kernels/cuda/flash_launch_utils.h"

#include <cmath>
#include <stdexcept>

namespace stepscope::kernels {

namespace {

using flash::ForwardParams;

template <int kHeadDim>
void launch_forward_f32(ForwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = flash::SimtForwardTraits<kHeadDim>;
  params.row_tiles = static_cast<int>((shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM);
  flash::check_device_supported(Tr::kSmemBytes);
  const auto blocks = static_cast<unsigned>(params.row_tiles * shape.batch * shape.heads);
  flash::launch_kernel(flash::flash_forward_simt_kernel<kHeadDim>, blocks, Tr::kThreads,
                       Tr::kSmemBytes, stream, params, "flash_forward_simt_kernel (fp32)");
}

template <typename T, int kHeadDim>
void launch_forward_mma(ForwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = flash::MmaForwardTraits<kHeadDim>;
  params.row_tiles = static_cast<int>((shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM);
  flash::check_device_supported(Tr::kSmemBytes);
  const auto blocks = static_cast<unsigned>(params.row_tiles * shape.batch * shape.heads);
  flash::launch_kernel(flash::flash_forward_mma_kernel<T, kHeadDim>, blocks, Tr::kThreads,
                       Tr::kSmemBytes, stream, params, "flash_forward_mma_kernel");
}

template <int kHeadDim>
void dispatch_type(ElementType type, const ForwardParams& params, const AttentionShape& shape,
                   cudaStream_t stream) {
  switch (type) {
    case ElementType::f32: return launch_forward_f32<kHeadDim>(params, shape, stream);
    case ElementType::f16: return launch_forward_mma<__half, kHeadDim>(params, shape, stream);
    case ElementType::bf16:
      return launch_forward_mma<__nv_bfloat16, kHeadDim>(params, shape, stream);
  }
  throw std::runtime_error("flash attention: unknown element type");
}

}  // namespace

void flash_forward_cuda(const FlashForwardArgs& args, cudaStream_t stream) {
  const AttentionShape& shape = args.shape;
  flash::throw_if_shape_unsupported(shape);
  if (!std::isfinite(args.softmax_scale)) {
    throw std::runtime_error("flash attention: softmax_scale must be finite");
  }
  flash::check_view("q", args.q, args.q_strides, shape, shape.seq_q);
  flash::check_view("k", args.k, args.k_strides, shape, shape.seq_k);
  flash::check_view("v", args.v, args.v_strides, shape, shape.seq_k);
  flash::check_view("o", args.o, args.o_strides, shape, shape.seq_q);
  if (args.lse == nullptr) throw std::runtime_error("flash attention: lse is null");

  const std::size_t bytes = flash::element_bytes(args.type);
  ForwardParams params;
  params.q = flash::make_view(args.q, args.q_strides);
  params.k = flash::make_view(args.k, args.k_strides);
  params.v = flash::make_view(args.v, args.v_strides);
  params.o = flash::make_view(args.o, args.o_strides);
  params.lse = args.lse;
  params.heads = static_cast<int>(shape.heads);
  params.seq_q = static_cast<int>(shape.seq_q);
  params.seq_k = static_cast<int>(shape.seq_k);
  params.head_dim = static_cast<int>(shape.head_dim);
  params.causal = shape.causal;
  params.vector_loads = flash::allows_vector_access(args.q, args.q_strides, bytes) &&
                        flash::allows_vector_access(args.k, args.k_strides, bytes) &&
                        flash::allows_vector_access(args.v, args.v_strides, bytes) &&
                        flash::allows_vector_access(args.o, args.o_strides, bytes);
  params.scale = args.softmax_scale;
  params.scale_log2 = args.softmax_scale * static_cast<float>(M_LOG2E);

  switch (flash::padded_head_dim(params.head_dim)) {
    case 32: return dispatch_type<32>(args.type, params, shape, stream);
    case 64: return dispatch_type<64>(args.type, params, shape, stream);
    case 96: return dispatch_type<96>(args.type, params, shape, stream);
    default: return dispatch_type<128>(args.type, params, shape, stream);
  }
}

}  // namespace stepscope::kernels
