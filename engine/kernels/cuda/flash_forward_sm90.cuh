// FlashAttention forward for Hopper (sm_90a), after FlashAttention-3 (Shah et al., 2024): TMA
// loads into an mbarrier pipeline, warp specialisation and wgmma.
//
// One CTA per (kBlockM = 128 query rows, batch*head). Warpgroup 0 is the producer: one thread
// loads the Q tile once and streams K/V tiles through kStages shared-memory stages, waiting on
// each stage's "empty" barrier before refilling it. Warpgroups 1 and 2 each own 64 query rows:
//   S = Q K^T        wgmma, both operands in shared memory (K-major), fp32 accumulators
//   online softmax   in registers (exp2 with the scale folded into one FFMA)
//   O += P V         wgmma with P converted in registers straight from S's accumulators (the
//                    accumulator and A-operand layouts coincide), V from shared memory read
//                    MN-major through the descriptor's transpose bit (no transposition)
// Within a warpgroup the S GEMM of tile j is issued before the P V GEMM of tile j-1, so the
// softmax of tile j runs while the tensor cores do P V (FA3's intra-warpgroup pipelining).
// O goes out through the warpgroup's own (no longer needed) Q rows in shared memory and a TMA
// store, which skips rows past seq_q and columns past head_dim; lse is stored per row.
// Grids of many short tiles run flash_forward_sm90_persistent.cuh instead: the same tile work
// (consume_forward_tile), one CTA per SM.
//
// Masking: TMA zero-fills rows past seq_q / seq_k and columns past head_dim; key columns past
// seq_k and (causal, top-left) keys after the query get -inf; causal CTAs stop at their
// diagonal tile. The host only picks this kernel for 16-bit types, a positive softmax scale and
// views TMA can address (sm90_tensor_map.h).
#pragma once

#include "kernels/cuda/flash_forward_sm90_consumer.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

namespace stepscope::kernels::flash {

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(Sm90ForwardTraits<kHeadDim>::kThreads, 1)
    flash_forward_sm90_kernel(const __grid_constant__ Sm90ForwardParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  using namespace sm90_forward;
  using Tr = Sm90ForwardTraits<kHeadDim>;

  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = sm90_aligned_smem(smem_raw);
  const Sm90ForwardBuffers<kHeadDim> buf(smem);

  const TileOfBlock assigned = forward_tile_of_block(static_cast<int>(blockIdx.x), p.row_tiles, p.causal, p.head_group);
  const int bh = assigned.bh;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int m0 = assigned.tile * Tr::kBlockM;
  const int key_tiles = forward_key_tiles<kHeadDim>(p, m0);

  if (threadIdx.x == 0) {
    init_forward_barriers(buf);
    fence_barrier_init();
  }
  __syncthreads();

  if (threadIdx.x < 128) {  // producer warpgroup
    setmaxnreg_dec<Tr::kProducerRegs>();
    if (threadIdx.x == 0) {
      load_forward_q(p, buf, m0, batch, head);
      for (int j = 0; j < key_tiles; ++j) load_forward_kv(p, buf, j, j, batch, head);
    }
    return;
  }

  setmaxnreg_inc<Tr::kConsumerRegs>();
  consume_forward_tile<T, kHeadDim>(p, smem, bh, batch, head, m0, key_tiles, 0, 0);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a target without sm_90a features: the host never launches this
#endif
}

}  // namespace stepscope::kernels::flash
