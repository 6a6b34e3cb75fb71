// Host launcher of the flash-attention backward: D = rowsum(dO * O) with the dQ accumulator
// zeroed, the key-parallel main kernel (dK, dV, and dQ into the fp32 accumulator), then dQ's
// conversion: three launches. fp32 with KernelPath::fastest takes the 3xTF32 tensor-core main
// kernel, with KernelPath::portable the exact SIMT one.
#include "kernels/cuda/flash_attention_cuda.h"
#include "kernels/cuda/flash_backward_helpers.cuh"
#include "kernels/cuda/flash_backward_simt.cuh"
#include "kernels/cuda/flash_backward_sm90.cuh"
#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/cuda/flash_mma_launch.cuh"
#include "kernels/cuda/flash_tf32_launch.h"
#include "kernels/cuda/sm90_dispatch.h"
#include "kernels/cuda/sm90_tensor_map.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace stepscope::kernels {

namespace {

using flash::BackwardParams;

// Grid-strided helper kernels need no more blocks than keep the GPU busy.
unsigned helper_blocks(int64_t work_items) {
  constexpr int64_t kMaxBlocks = 8192;
  const int64_t blocks = (work_items + flash::kHelperThreads - 1) / flash::kHelperThreads;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, kMaxBlocks)));
}

template <typename T>
void launch_helpers_before(const BackwardParams& params, cudaStream_t stream) {
  const int64_t threads = params.rows * flash::rowsum_threads_per_row<T>(params);
  flash::launch_kernel(flash::flash_backward_rowsum_kernel<T>, helper_blocks(threads),
                       flash::kHelperThreads, 0, stream, params, "flash_backward_rowsum_kernel");
}

template <typename T>
void launch_helpers_after(const BackwardParams& params, cudaStream_t stream) {
  flash::launch_kernel(flash::flash_backward_dq_kernel<T>,
                       helper_blocks(params.rows * params.head_dim / flash::kChunk<T>),
                       flash::kHelperThreads, 0,
                       stream, params, "flash_backward_dq_kernel");
}

template <int kHeadDim>
void launch_backward_f32(BackwardParams params, const AttentionShape& shape, cudaStream_t stream) {
  using Tr = flash::SimtBackwardTraits<kHeadDim>;
  flash::check_device_supported(Tr::kSmemBytes);
  params.key_tiles = static_cast<int>((shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN);
  params.head_group = flash::ungrouped_head_group(static_cast<int>(shape.batch * shape.heads), shape.causal);
  launch_helpers_before<float>(params, stream);
  const auto blocks = static_cast<unsigned>(params.key_tiles * shape.batch * shape.heads);
  flash::launch_kernel(flash::flash_backward_simt_kernel<kHeadDim>, blocks, Tr::kThreads,
                       Tr::kSmemBytes, stream, params, "flash_backward_simt_kernel (fp32)");
  launch_helpers_after<float>(params, stream);
}

template <typename T, int kHeadDim>
void launch_backward_mma(const BackwardParams& params, const AttentionShape& shape, cudaStream_t stream) {
  launch_helpers_before<T>(params, stream);
  flash::launch_backward_main_mma<T, kHeadDim>(params, shape, stream);
  launch_helpers_after<T>(params, stream);
}

// Hopper main kernel (wgmma, TMA); the helpers around it are the portable ones.
template <typename T, int kHeadDim>
void launch_backward_sm90(BackwardParams params, const FlashBackwardArgs& args,
                          cudaStream_t stream) {
  using Tr = flash::Sm90BackwardTraits<kHeadDim>;
  const AttentionShape& shape = args.shape;
  params.key_tiles = static_cast<int>((shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN);
  params.head_group = flash::backward_grid_head_group(params.key_tiles, shape, Tr::kSmemBytes);
  const int bh_count = static_cast<int>(shape.batch * shape.heads);
  const bool paired = flash::backward_pairs_key_tiles(params.key_tiles, bh_count,
                                                      flash::check_device_supported(Tr::kSmemBytes), shape.causal,
                                                      shape.seq_q == shape.seq_k, kHeadDim);
  // The rowsum pass first, so the GPU starts while the host encodes the tensor maps.
  launch_helpers_before<T>(params, stream);
  flash::Sm90BackwardParams sp;
  sp.p = params;
  using flash::make_attention_tensor_map;
  constexpr CUtensorMapSwizzle kKSwizzle =
      Tr::kKSwizzleBytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B;
  sp.q = make_attention_tensor_map(args.type, args.q, args.q_strides, shape, shape.seq_q,
                                   {64, Tr::kBlockM, CU_TENSOR_MAP_SWIZZLE_128B});
  sp.d_o = make_attention_tensor_map(args.type, args.d_o, args.d_o_strides, shape, shape.seq_q,
                                     {64, Tr::kBlockM, CU_TENSOR_MAP_SWIZZLE_128B});
  sp.k = make_attention_tensor_map(args.type, args.k, args.k_strides, shape, shape.seq_k,
                                   {Tr::kKBlockCols, Tr::kBlockN, kKSwizzle});
  sp.v = make_attention_tensor_map(args.type, args.v, args.v_strides, shape, shape.seq_k,
                                   {64, Tr::kBlockN, CU_TENSOR_MAP_SWIZZLE_128B});
  sp.dq_accum = flash::make_dq_accum_map(params.dq_accum, shape.head_dim, shape.seq_q,
                                         shape.batch * shape.heads, Tr::kDqBoxRows);
  if constexpr (flash::backward_pairs_head_dim(kHeadDim)) {
    if (paired) {
      const auto blocks = static_cast<unsigned>(flash::key_tile_pairs(params.key_tiles) * bh_count);
      flash::launch_kernel(flash::flash_backward_sm90_kernel<T, kHeadDim, true>, blocks, Tr::kThreads,
                           Tr::kSmemBytes, stream, sp, "flash_backward_sm90_kernel (paired key tiles)");
      launch_helpers_after<T>(params, stream);
      return;
    }
  }
  {
    const auto blocks = static_cast<unsigned>(params.key_tiles * bh_count);
    flash::launch_kernel(flash::flash_backward_sm90_kernel<T, kHeadDim, false>, blocks, Tr::kThreads,
                         Tr::kSmemBytes, stream, sp, "flash_backward_sm90_kernel");
  }
  launch_helpers_after<T>(params, stream);
}

// The Hopper kernel takes fp16/bf16 on a cc 9.0 device when TMA can read Q, K, V and dO and
// dK, dV take aligned 16-byte stores; anything else runs the portable kernel.
bool sm90_backward_applies(const FlashBackwardArgs& args) {
  if (args.path != KernelPath::fastest || args.type == ElementType::f32) return false;
  const AttentionShape& s = args.shape;
  using flash::tma_view_ok;
  return tma_view_ok(args.type, args.q, args.q_strides, s, s.seq_q) &&
         tma_view_ok(args.type, args.d_o, args.d_o_strides, s, s.seq_q) &&
         tma_view_ok(args.type, args.k, args.k_strides, s, s.seq_k) &&
         tma_view_ok(args.type, args.v, args.v_strides, s, s.seq_k) &&
         flash::allows_vector_access(args.dk, args.dk_strides, 2) &&
         flash::allows_vector_access(args.dv, args.dv_strides, 2) &&
         flash::current_device_is_sm90();
}

// Launches the Hopper kernel for the padded head dim; false (nothing launched) when this build
// carries no sm_90a code for it.
template <typename T, int kHeadDim>
bool launch_if_compiled(const BackwardParams& params, const FlashBackwardArgs& args,
                        cudaStream_t stream) {
  if (!flash::sm90a_image_loaded<flash::flash_backward_sm90_kernel<T, kHeadDim, false>>(
          "flash_backward_sm90_kernel")) {
    return false;
  }
  if constexpr (flash::backward_pairs_head_dim(kHeadDim)) {
    if (!flash::sm90a_image_loaded<flash::flash_backward_sm90_kernel<T, kHeadDim, true>>(
            "flash_backward_sm90_kernel (paired key tiles)")) {
      return false;
    }
  }
  launch_backward_sm90<T, kHeadDim>(params, args, stream);
  return true;
}

template <typename T>
bool dispatch_sm90(const BackwardParams& params, const FlashBackwardArgs& args,
                   cudaStream_t stream) {
  if (flash::padded_head_dim(params.head_dim) <= 64) {
    return launch_if_compiled<T, 64>(params, args, stream);
  }
  return launch_if_compiled<T, 128>(params, args, stream);
}

template <int kHeadDim>
void dispatch_type(ElementType type, const BackwardParams& params, const AttentionShape& shape,
                   cudaStream_t stream) {
  switch (type) {
    case ElementType::f32: return launch_backward_f32<kHeadDim>(params, shape, stream);
    case ElementType::f16: return launch_backward_mma<__half, kHeadDim>(params, shape, stream);
    case ElementType::bf16:
      return launch_backward_mma<__nv_bfloat16, kHeadDim>(params, shape, stream);
  }
  throw std::runtime_error("flash attention: unknown element type");
}

}  // namespace

void flash_backward_cuda(const FlashBackwardArgs& args, cudaStream_t stream) {
  const AttentionShape& shape = args.shape;
  flash::throw_if_shape_unsupported(shape);
  if (!std::isfinite(args.softmax_scale)) {
    throw std::runtime_error("flash attention: softmax_scale must be finite");
  }
  flash::check_view("q", args.q, args.q_strides, shape, shape.seq_q);
  flash::check_view("k", args.k, args.k_strides, shape, shape.seq_k);
  flash::check_view("v", args.v, args.v_strides, shape, shape.seq_k);
  flash::check_view("o", args.o, args.o_strides, shape, shape.seq_q);
  flash::check_view("d_o", args.d_o, args.d_o_strides, shape, shape.seq_q);
  flash::check_view("dq", args.dq, args.dq_strides, shape, shape.seq_q);
  flash::check_view("dk", args.dk, args.dk_strides, shape, shape.seq_k);
  flash::check_view("dv", args.dv, args.dv_strides, shape, shape.seq_k);
  if (args.lse == nullptr) throw std::runtime_error("flash attention: lse is null");
  if (args.workspace == nullptr) throw std::runtime_error("flash attention: workspace is null");
  if (reinterpret_cast<std::uintptr_t>(args.workspace) % 16 != 0) {
    throw std::runtime_error("flash attention: workspace must be 16-byte aligned");
  }

  const std::size_t bytes = flash::element_bytes(args.type);
  BackwardParams params;
  params.q = flash::make_view(args.q, args.q_strides);
  params.k = flash::make_view(args.k, args.k_strides);
  params.v = flash::make_view(args.v, args.v_strides);
  params.o = flash::make_view(args.o, args.o_strides);
  params.d_o = flash::make_view(args.d_o, args.d_o_strides);
  params.dq = flash::make_view(args.dq, args.dq_strides);
  params.dk = flash::make_view(args.dk, args.dk_strides);
  params.dv = flash::make_view(args.dv, args.dv_strides);
  params.lse = args.lse;
  params.heads = static_cast<int>(shape.heads);
  params.seq_q = static_cast<int>(shape.seq_q);
  params.seq_k = static_cast<int>(shape.seq_k);
  params.head_dim = static_cast<int>(shape.head_dim);
  params.rows = shape.batch * shape.heads * shape.seq_q;
  params.dq_accum = args.workspace;
  params.d_rowsum = args.workspace + params.rows * shape.head_dim;
  params.causal = shape.causal;
  // Only the main kernel's tile copies use 16-byte accesses: Q, K, V, dO in, dK, dV out.
  params.vector_loads = flash::allows_vector_access(args.q, args.q_strides, bytes) &&
                        flash::allows_vector_access(args.k, args.k_strides, bytes) &&
                        flash::allows_vector_access(args.v, args.v_strides, bytes) &&
                        flash::allows_vector_access(args.d_o, args.d_o_strides, bytes) &&
                        flash::allows_vector_access(args.dk, args.dk_strides, bytes) &&
                        flash::allows_vector_access(args.dv, args.dv_strides, bytes);
  // The helpers' 16-byte accesses (the workspace itself is read as float4 by the conversion).
  params.helper_vectors = flash::allows_vector_access(args.o, args.o_strides, bytes) &&
                          flash::allows_vector_access(args.d_o, args.d_o_strides, bytes);
  params.dq_vectors = flash::allows_vector_access(args.dq, args.dq_strides, bytes);
  params.scale = args.softmax_scale;
  params.scale_log2 = args.softmax_scale * static_cast<float>(M_LOG2E);

  if (sm90_backward_applies(args)) {
    const bool launched = args.type == ElementType::f16
                              ? dispatch_sm90<__half>(params, args, stream)
                              : dispatch_sm90<__nv_bfloat16>(params, args, stream);
    if (launched) return;
  }
  if (args.type == ElementType::f32 && args.path == KernelPath::fastest) {
    params.query_splits = flash::tf32x3_backward_query_splits(shape);
    launch_helpers_before<float>(params, stream);
    flash::launch_backward_main_tf32x3(params, shape, stream);
    launch_helpers_after<float>(params, stream);
    return;
  }
  switch (flash::padded_head_dim(params.head_dim)) {
    case 32: return dispatch_type<32>(args.type, params, shape, stream);
    case 64: return dispatch_type<64>(args.type, params, shape, stream);
    case 96: return dispatch_type<96>(args.type, params, shape, stream);
    default: return dispatch_type<128>(args.type, params, shape, stream);
  }
}

}  // namespace stepscope::kernels
