// Host launcher of the flash-attention backward: D = rowsum(dO * O) with the dQ accumulator
// zeroed, the key-parallel main kernel (dK, dV, and dQ into the fp32 accumulator), then dQ's
// conversion: three launches. fp32 with KernelPath::fastest takes the 3xTF32 tensor-core main
// kernel, with KernelPath::portable the exact SIMT one. The launchers of each variant are
// compiled apart (flash_variants.h); this file holds the dispatch and the helper kernels, which
// every head dim shares.
#include "kernels/cuda/flash_attention_cuda.h"
#include "kernels/cuda/flash_backward_helpers.cuh"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/cuda/flash_variants.h"
#include "kernels/cuda/sm90_dispatch.h"
#include "kernels/cuda/sm90_tensor_map.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace stepscope::kernels {

namespace flash {

namespace {

// Grid-strided helper kernels need no more blocks than keep the GPU busy.
unsigned helper_blocks(int64_t work_items) {
  constexpr int64_t kMaxBlocks = 8192;
  const int64_t blocks = (work_items + kHelperThreads - 1) / kHelperThreads;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, kMaxBlocks)));
}

}  // namespace

template <typename T>
void launch_backward_helpers_before(const BackwardParams& params, cudaStream_t stream) {
  const int64_t threads = params.rows * rowsum_threads_per_row<T>(params);
  launch_kernel(flash_backward_rowsum_kernel<T>, helper_blocks(threads), kHelperThreads, 0, stream, params,
                "flash_backward_rowsum_kernel");
}

template <typename T>
void launch_backward_helpers_after(const BackwardParams& params, cudaStream_t stream) {
  launch_kernel(flash_backward_dq_kernel<T>, helper_blocks(params.rows * params.head_dim / kChunk<T>),
                kHelperThreads, 0, stream, params, "flash_backward_dq_kernel");
}

template void launch_backward_helpers_before<__half>(const BackwardParams&, cudaStream_t);
template void launch_backward_helpers_before<__nv_bfloat16>(const BackwardParams&, cudaStream_t);
template void launch_backward_helpers_before<float>(const BackwardParams&, cudaStream_t);
template void launch_backward_helpers_after<__half>(const BackwardParams&, cudaStream_t);
template void launch_backward_helpers_after<__nv_bfloat16>(const BackwardParams&, cudaStream_t);
template void launch_backward_helpers_after<float>(const BackwardParams&, cudaStream_t);

}  // namespace flash

namespace {

using flash::BackwardParams;
using flash::launch_backward_helpers_after;
using flash::launch_backward_helpers_before;

// fp32 with KernelPath::fastest: the 3xTF32 tensor-core main kernel and its query splits
// (BackwardParams::query_splits, set before the rowsum kernel runs).
int tf32x3_backward_query_splits(const AttentionShape& shape) {
  switch (flash::padded_head_dim(static_cast<int>(shape.head_dim))) {
    case 32: return flash::backward_query_splits<float, 32>(shape);
    case 64: return flash::backward_query_splits<float, 64>(shape);
    case 96: return flash::backward_query_splits<float, 96>(shape);
    default: return flash::backward_query_splits<float, 128>(shape);
  }
}

void launch_backward_main_tf32x3(const BackwardParams& params, const AttentionShape& shape, cudaStream_t stream) {
  switch (flash::padded_head_dim(params.head_dim)) {
    case 32: return flash::launch_backward_main_mma<float, 32>(params, shape, stream);
    case 64: return flash::launch_backward_main_mma<float, 64>(params, shape, stream);
    case 96: return flash::launch_backward_main_mma<float, 96>(params, shape, stream);
    default: return flash::launch_backward_main_mma<float, 128>(params, shape, stream);
  }
}

template <typename T, int kHeadDim>
void launch_backward_mma(const BackwardParams& params, const AttentionShape& shape, cudaStream_t stream) {
  launch_backward_helpers_before<T>(params, stream);
  flash::launch_backward_main_mma<T, kHeadDim>(params, shape, stream);
  launch_backward_helpers_after<T>(params, stream);
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
  if (!flash::sm90_backward_compiled<T, kHeadDim>()) return false;
  flash::launch_backward_sm90<T, kHeadDim>(params, args, stream);
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
    case ElementType::f32: return flash::launch_backward_simt<kHeadDim>(params, shape, stream);
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
    params.query_splits = tf32x3_backward_query_splits(shape);
    launch_backward_helpers_before<float>(params, stream);
    launch_backward_main_tf32x3(params, shape, stream);
    launch_backward_helpers_after<float>(params, stream);
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
