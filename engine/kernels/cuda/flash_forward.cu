// Host launcher of the flash-attention forward: validates the arguments, picks the kernel for
// the element type and padded head dim, and launches one CTA per (query tile, batch*head).
// On compute capability 9.0 with KernelPath::fastest, 16-bit types and TMA-addressable views
// take the Hopper kernel (flash_forward_sm90.cuh); fp32 with KernelPath::fastest the 3xTF32
// tensor-core kernel (any sm_80+ device); everything else the portable sm_80 ones (fp32: SIMT).
// The launchers of each variant are compiled apart (flash_variants.h); this file holds the
// dispatch and the key splits' combine kernel, which every head dim shares.
#include "kernels/cuda/flash_attention_cuda.h"
#include "kernels/cuda/flash_forward_combine.cuh"
#include "kernels/cuda/flash_kernel_traits.h"
#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/cuda/flash_sm90_traits.h"
#include "kernels/cuda/flash_variants.h"
#include "kernels/cuda/sm90_dispatch.h"
#include "kernels/cuda/sm90_tensor_map.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace stepscope::kernels {

namespace flash {

template <typename T>
void launch_forward_combine(const ForwardParams& params, const AttentionShape& shape, cudaStream_t stream) {
  const int64_t items = params.rows * (partial_row_floats(shape.head_dim) / 4);
  const auto combine_blocks =
      static_cast<unsigned>(std::clamp<int64_t>((items + kCombineThreads - 1) / kCombineThreads, 1, 8192));
  launch_kernel(flash_forward_combine_kernel<T>, combine_blocks, kCombineThreads, 0, stream, params,
                "flash_forward_combine_kernel");
}

template void launch_forward_combine<__half>(const ForwardParams&, const AttentionShape&, cudaStream_t);
template void launch_forward_combine<__nv_bfloat16>(const ForwardParams&, const AttentionShape&, cudaStream_t);
template void launch_forward_combine<float>(const ForwardParams&, const AttentionShape&, cudaStream_t);

}  // namespace flash

namespace {

using flash::ForwardParams;

// fp32 with KernelPath::fastest: the 3xTF32 tensor-core kernels' key splits and launch.
flash::KeySplitPlan tf32x3_forward_key_split_plan(const AttentionShape& shape, int requested) {
  switch (flash::padded_head_dim(static_cast<int>(shape.head_dim))) {
    case 32: return flash::forward_key_split_plan<float, 32>(shape, requested);
    case 64: return flash::forward_key_split_plan<float, 64>(shape, requested);
    case 96: return flash::forward_key_split_plan<float, 96>(shape, requested);
    default: return flash::forward_key_split_plan<float, 128>(shape, requested);
  }
}

void launch_forward_tf32x3(const ForwardParams& params, const AttentionShape& shape, int requested_splits,
                           float* workspace, cudaStream_t stream) {
  switch (flash::padded_head_dim(params.head_dim)) {
    case 32: return flash::launch_forward_mma<float, 32>(params, shape, requested_splits, workspace, stream);
    case 64: return flash::launch_forward_mma<float, 64>(params, shape, requested_splits, workspace, stream);
    case 96: return flash::launch_forward_mma<float, 96>(params, shape, requested_splits, workspace, stream);
    default: return flash::launch_forward_mma<float, 128>(params, shape, requested_splits, workspace, stream);
  }
}

template <int kHeadDim>
void dispatch_type(const FlashForwardArgs& args, const ForwardParams& params, cudaStream_t stream) {
  switch (args.type) {
    case ElementType::f32: return flash::launch_forward_simt<kHeadDim>(params, args.shape, stream);
    case ElementType::f16:
      return flash::launch_forward_mma<__half, kHeadDim>(params, args.shape, args.key_splits, args.workspace, stream);
    case ElementType::bf16:
      return flash::launch_forward_mma<__nv_bfloat16, kHeadDim>(params, args.shape, args.key_splits, args.workspace,
                                                                stream);
  }
  throw std::runtime_error("flash attention: unknown element type");
}

bool sm90_forward_applies(const FlashForwardArgs& args) {
  const AttentionShape& shape = args.shape;
  return args.path == KernelPath::fastest && args.type != ElementType::f32 &&
         args.softmax_scale > 0.f && shape.head_dim % 8 == 0 &&
         flash::tma_view_ok(args.type, args.q, args.q_strides, shape, shape.seq_q) &&
         flash::tma_view_ok(args.type, args.k, args.k_strides, shape, shape.seq_k) &&
         flash::tma_view_ok(args.type, args.v, args.v_strides, shape, shape.seq_k) &&
         flash::tma_view_ok(args.type, args.o, args.o_strides, shape, shape.seq_q) &&
         flash::current_device_is_sm90();
}

// Whether the Hopper kernel takes `args`: it applies and this build carries its sm_90a code.
bool sm90_forward_runs(const FlashForwardArgs& args) {
  if (!sm90_forward_applies(args)) return false;
  const bool d64 = flash::sm90_padded_head_dim(static_cast<int>(args.shape.head_dim)) == 64;
  using flash::sm90_forward_compiled;
  if (args.type == ElementType::bf16) {
    return d64 ? sm90_forward_compiled<__nv_bfloat16, 64>() : sm90_forward_compiled<__nv_bfloat16, 128>();
  }
  return d64 ? sm90_forward_compiled<__half, 64>() : sm90_forward_compiled<__half, 128>();
}

template <typename T>
void dispatch_sm90(const FlashForwardArgs& args, cudaStream_t stream) {
  if (flash::sm90_padded_head_dim(static_cast<int>(args.shape.head_dim)) == 64) {
    return flash::launch_forward_sm90<T, 64>(args, stream);
  }
  flash::launch_forward_sm90<T, 128>(args, stream);
}

// The key splits flash_forward_cuda runs `args` with: the tensor-core kernels' plan; none on the
// Hopper and SIMT kernels.
flash::KeySplitPlan key_split_plan(const FlashForwardArgs& args) {
  if (args.key_splits == 1 || sm90_forward_runs(args)) return {};
  const AttentionShape& shape = args.shape;
  if (args.type == ElementType::f32) {
    return args.path == KernelPath::fastest ? tf32x3_forward_key_split_plan(shape, args.key_splits)
                                            : flash::KeySplitPlan{};
  }
  const bool half = args.type == ElementType::f16;
  switch (flash::padded_head_dim(static_cast<int>(shape.head_dim))) {
    case 32:
      return half ? flash::forward_key_split_plan<__half, 32>(shape, args.key_splits)
                  : flash::forward_key_split_plan<__nv_bfloat16, 32>(shape, args.key_splits);
    case 64:
      return half ? flash::forward_key_split_plan<__half, 64>(shape, args.key_splits)
                  : flash::forward_key_split_plan<__nv_bfloat16, 64>(shape, args.key_splits);
    case 96:
      return half ? flash::forward_key_split_plan<__half, 96>(shape, args.key_splits)
                  : flash::forward_key_split_plan<__nv_bfloat16, 96>(shape, args.key_splits);
    default:
      return half ? flash::forward_key_split_plan<__half, 128>(shape, args.key_splits)
                  : flash::forward_key_split_plan<__nv_bfloat16, 128>(shape, args.key_splits);
  }
}

void check_forward_args(const FlashForwardArgs& args) {
  const AttentionShape& shape = args.shape;
  flash::throw_if_shape_unsupported(shape);
  if (!std::isfinite(args.softmax_scale)) {
    throw std::runtime_error("flash attention: softmax_scale must be finite");
  }
  flash::check_view("q", args.q, args.q_strides, shape, shape.seq_q);
  flash::check_view("k", args.k, args.k_strides, shape, shape.seq_k);
  flash::check_view("v", args.v, args.v_strides, shape, shape.seq_k);
  flash::check_view("o", args.o, args.o_strides, shape, shape.seq_q);
  if (args.key_splits < 0) throw std::runtime_error("flash attention: key_splits must be 0 (choose), 1 or more");
}

}  // namespace

int64_t flash_forward_workspace_floats(const FlashForwardArgs& args) {
  check_forward_args(args);
  if (sm90_forward_runs(args)) return 0;
  const AttentionShape& shape = args.shape;
  return flash::key_split_workspace_floats(key_split_plan(args), shape.batch * shape.heads * shape.seq_q,
                                           shape.head_dim);
}

void flash_forward_cuda(const FlashForwardArgs& args, cudaStream_t stream) {
  const AttentionShape& shape = args.shape;
  check_forward_args(args);
  if (args.lse == nullptr) throw std::runtime_error("flash attention: lse is null");
  if (args.workspace != nullptr && reinterpret_cast<std::uintptr_t>(args.workspace) % 16 != 0) {
    throw std::runtime_error("flash attention: workspace must be 16-byte aligned");
  }
  if (args.key_splits > 1 && args.workspace == nullptr && key_split_plan(args).splits > 1) {
    throw std::runtime_error("flash attention: key_splits above 1 needs a workspace of "
                             "flash_forward_workspace_floats floats");
  }
  if (sm90_forward_runs(args)) {
    return args.type == ElementType::bf16 ? dispatch_sm90<__nv_bfloat16>(args, stream)
                                          : dispatch_sm90<__half>(args, stream);
  }

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

  if (args.type == ElementType::f32 && args.path == KernelPath::fastest) {
    return launch_forward_tf32x3(params, shape, args.key_splits, args.workspace, stream);
  }
  switch (flash::padded_head_dim(params.head_dim)) {
    case 32: return dispatch_type<32>(args, params, stream);
    case 64: return dispatch_type<64>(args, params, stream);
    case 96: return dispatch_type<96>(args, params, stream);
    default: return dispatch_type<128>(args, params, stream);
  }
}

}  // namespace stepscope::kernels
