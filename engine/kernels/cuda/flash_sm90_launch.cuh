// Launchers of the Hopper (sm_90a) flash kernels for one 16-bit type and padded head dim 64 or
// 128 (declared in flash_variants.h), instantiated one variant a translation unit under
// instantiations/. The dispatchers take them only on a cc 9.0 device with TMA-addressable views
// and only when sm90_*_compiled says this build carries their sm_90a code.
#pragma once

#include "kernels/cuda/flash_backward_sm90.cuh"
#include "kernels/cuda/flash_forward_sm90.cuh"
#include "kernels/cuda/flash_forward_sm90_persistent.cuh"
#include "kernels/cuda/flash_launch_utils.h"
#include "kernels/cuda/flash_tile_counters.h"
#include "kernels/cuda/flash_variants.h"
#include "kernels/cuda/sm90_dispatch.h"
#include "kernels/cuda/sm90_tensor_map.h"

#include <cmath>
#include <cstdint>

namespace stepscope::kernels::flash {

// Whether the Hopper forward runs `shape` with persistent CTAs on `sms` SMs (given a tile
// counter).
inline bool sm90_shape_runs_persistent(const AttentionShape& shape, int sms) {
  static_assert(Sm90ForwardTraits<64>::kBlockM == Sm90ForwardTraits<128>::kBlockM,
                "both head dims tile the queries alike");
  constexpr int64_t kBlockM = Sm90ForwardTraits<64>::kBlockM;
  const auto row_tiles = static_cast<int>((shape.seq_q + kBlockM - 1) / kBlockM);
  return forward_runs_persistent(row_tiles, row_tiles * shape.batch * shape.heads, sms,
                                 sm90_padded_head_dim(static_cast<int>(shape.head_dim)));
}

template <typename T, int kHeadDim>
void launch_forward_sm90(const FlashForwardArgs& args, cudaStream_t stream) {
  using Tr = Sm90ForwardTraits<kHeadDim>;
  const AttentionShape& shape = args.shape;
  Sm90ForwardParams params;
  // 64-column boxes with the 128-byte swizzle; O is stored per warpgroup (64 rows).
  params.q_map = make_attention_tensor_map(args.type, args.q, args.q_strides, shape, shape.seq_q,
                                           {64, Tr::kBlockM, CU_TENSOR_MAP_SWIZZLE_128B});
  params.k_map = make_attention_tensor_map(args.type, args.k, args.k_strides, shape, shape.seq_k,
                                           {64, Tr::kBlockN, CU_TENSOR_MAP_SWIZZLE_128B});
  params.v_map = make_attention_tensor_map(args.type, args.v, args.v_strides, shape, shape.seq_k,
                                           {64, Tr::kBlockN, CU_TENSOR_MAP_SWIZZLE_128B});
  params.o_map = make_attention_tensor_map(args.type, args.o, args.o_strides, shape, shape.seq_q,
                                           {64, 64, CU_TENSOR_MAP_SWIZZLE_128B});
  params.lse = args.lse;
  params.heads = static_cast<int>(shape.heads);
  params.seq_q = static_cast<int>(shape.seq_q);
  params.seq_k = static_cast<int>(shape.seq_k);
  params.row_tiles = static_cast<int>((shape.seq_q + Tr::kBlockM - 1) / Tr::kBlockM);
  params.bh_count = static_cast<int>(shape.batch * shape.heads);
  params.causal = shape.causal;
  params.scale = args.softmax_scale;
  params.scale_log2 = args.softmax_scale * static_cast<float>(M_LOG2E);
  // One CTA per SM (Sm90ForwardTraits' registers and shared memory).
  const int sms = check_device_supported(kSm90PersistentForwardSmemBytes<kHeadDim>);
  params.head_group = forward_grid_head_group(params.row_tiles, shape, sms);
  const int64_t tiles = static_cast<int64_t>(params.row_tiles) * params.bh_count;
  // Persistent CTAs take the tiles after the first wave from the stream's counter.
  if (sm90_shape_runs_persistent(shape, sms)) params.tile_counter = stream_tile_counter(stream);
  if (params.tile_counter != nullptr) {
    return launch_kernel(flash_forward_sm90_persistent_kernel<T, kHeadDim>, static_cast<unsigned>(sms),
                         Tr::kThreads, kSm90PersistentForwardSmemBytes<kHeadDim>, stream, params,
                         "flash_forward_sm90_persistent_kernel");
  }
  launch_kernel(flash_forward_sm90_kernel<T, kHeadDim>, static_cast<unsigned>(tiles), Tr::kThreads, Tr::kSmemBytes,
                stream, params, "flash_forward_sm90_kernel");
}

// Whether this build's image of the Hopper kernels for the device is the sm_90a one.
template <typename T, int kHeadDim>
bool sm90_forward_compiled() {
  return sm90a_image_loaded<flash_forward_sm90_kernel<T, kHeadDim>>("flash_forward_sm90_kernel") &&
         sm90a_image_loaded<flash_forward_sm90_persistent_kernel<T, kHeadDim>>(
             "flash_forward_sm90_persistent_kernel");
}

// Hopper main kernel (wgmma, TMA); the helpers around it are the portable ones.
template <typename T, int kHeadDim>
void launch_backward_sm90(BackwardParams params, const FlashBackwardArgs& args, cudaStream_t stream) {
  using Tr = Sm90BackwardTraits<kHeadDim>;
  const AttentionShape& shape = args.shape;
  params.key_tiles = static_cast<int>((shape.seq_k + Tr::kBlockN - 1) / Tr::kBlockN);
  params.head_group = backward_grid_head_group(params.key_tiles, shape, Tr::kSmemBytes);
  const int bh_count = static_cast<int>(shape.batch * shape.heads);
  const bool paired = backward_pairs_key_tiles(params.key_tiles, bh_count, check_device_supported(Tr::kSmemBytes),
                                               shape.causal, shape.seq_q == shape.seq_k, kHeadDim);
  // The rowsum pass first, so the GPU starts while the host encodes the tensor maps.
  launch_backward_helpers_before<T>(params, stream);
  Sm90BackwardParams sp;
  sp.p = params;
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
  sp.dq_accum = make_dq_accum_map(params.dq_accum, shape.head_dim, shape.seq_q, shape.batch * shape.heads,
                                  Tr::kDqBoxRows);
  if constexpr (backward_pairs_head_dim(kHeadDim)) {
    if (paired) {
      const auto blocks = static_cast<unsigned>(key_tile_pairs(params.key_tiles) * bh_count);
      launch_kernel(flash_backward_sm90_kernel<T, kHeadDim, true>, blocks, Tr::kThreads, Tr::kSmemBytes, stream, sp,
                    "flash_backward_sm90_kernel (paired key tiles)");
      launch_backward_helpers_after<T>(params, stream);
      return;
    }
  }
  {
    const auto blocks = static_cast<unsigned>(params.key_tiles * bh_count);
    launch_kernel(flash_backward_sm90_kernel<T, kHeadDim, false>, blocks, Tr::kThreads, Tr::kSmemBytes, stream, sp,
                  "flash_backward_sm90_kernel");
  }
  launch_backward_helpers_after<T>(params, stream);
}

// Whether this build carries the sm_90a code of the Hopper backward's kernels for kHeadDim
// (unpaired first, then the paired one where the head dim pairs key tiles).
template <typename T, int kHeadDim>
bool sm90_backward_compiled() {
  if (!sm90a_image_loaded<flash_backward_sm90_kernel<T, kHeadDim, false>>("flash_backward_sm90_kernel")) {
    return false;
  }
  if constexpr (backward_pairs_head_dim(kHeadDim)) {
    if (!sm90a_image_loaded<flash_backward_sm90_kernel<T, kHeadDim, true>>(
            "flash_backward_sm90_kernel (paired key tiles)")) {
      return false;
    }
  }
  return true;
}

}  // namespace stepscope::kernels::flash
