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

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_sm90_traits.h"
#include "kernels/cuda/sm90_async_copy.cuh"
#include "kernels/cuda/sm90_wgmma.cuh"
#include "kernels/cuda/flash_tile_order.cuh"

#include <cuda.h>

#include <cmath>
#include <cstdint>

namespace stepscope::kernels::flash {

struct Sm90ForwardParams {
  CUtensorMap q_map;  // boxes of (64 columns, kBlockM rows)
  CUtensorMap k_map;  // (64, kBlockN)
  CUtensorMap v_map;  // (64, kBlockN)
  CUtensorMap o_map;  // (64, 64): one warpgroup's rows
  float* lse = nullptr;  // (batch * heads, seq_q)
  int heads = 1;
  int seq_q = 1;
  int seq_k = 1;
  int row_tiles = 1;
  int head_group = 1;  // heads per group of the grid order (flash_grid_order.h)
  bool causal = false;
  float scale = 1.f;       // > 0
  float scale_log2 = 1.f;  // scale * log2(e)
  int bh_count = 1;        // batch * heads (the persistent kernel's tile count)
  unsigned int* tile_counter = nullptr;  // the persistent kernel's: tiles taken after the first wave
};

namespace sm90_forward {

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Online softmax of one S tile (raw scores, kBlockN / 2 accumulators per thread, rows row0 and
// row0 + 8): masks, updates the running max (raw units) and sum, turns s into probabilities
// relative to the new max, and returns the factors O must be rescaled by.
template <int kBlockN>
__device__ __forceinline__ void softmax_tile(float (&s)[kBlockN / 2], float (&row_max)[2],
                                             float (&row_sum)[2], float (&rescale)[2], int n0,
                                             int row0, bool mask, const Sm90ForwardParams& p) {
  const int t = threadIdx.x % 4;
  if (mask) {
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = n0 + 8 * j + 2 * t + (e & 1);
        const int row = row0 + 8 * (e >> 1);
        if (key >= p.seq_k || (p.causal && key > row)) s[4 * j + e] = -INFINITY;
      }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
      tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * r], s[4 * j + 2 * r + 1]));
    const float new_max = fmaxf(row_max[r], quad_max(tile_max));
    // A row with no visible key yet keeps max -inf; subtracting 0 keeps it NaN-free.
    const float base = new_max == -INFINITY ? 0.f : new_max * p.scale_log2;
    rescale[r] = fast_exp2(row_max[r] * p.scale_log2 - base);
    row_max[r] = new_max;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
      for (int e = 2 * r; e < 2 * r + 2; ++e) {
        s[4 * j + e] = fast_exp2(fmaf(s[4 * j + e], p.scale_log2, -base));
        sum += s[4 * j + e];
      }
    row_sum[r] = row_sum[r] * rescale[r] + sum;
  }
}

// P (fp32 accumulators of S) as the A fragments of the P V GEMM's k-steps of 16 keys.
template <typename T, int kBlockN>
__device__ __forceinline__ void convert_p(const float (&s)[kBlockN / 2],
                                          uint32_t (&pa)[kBlockN / 16][4]) {
#pragma unroll
  for (int ks = 0; ks < kBlockN / 16; ++ks) {
    pa[ks][0] = MmaElement<T>::pack(s[8 * ks + 0], s[8 * ks + 1]);
    pa[ks][1] = MmaElement<T>::pack(s[8 * ks + 2], s[8 * ks + 3]);
    pa[ks][2] = MmaElement<T>::pack(s[8 * ks + 4], s[8 * ks + 5]);
    pa[ks][3] = MmaElement<T>::pack(s[8 * ks + 6], s[8 * ks + 7]);
  }
}

template <int kHeadDim>
__device__ __forceinline__ void rescale_o(float (&o)[kHeadDim / 2], const float (&rescale)[2]) {
#pragma unroll
  for (int j = 0; j < kHeadDim / 8; ++j) {
    o[4 * j + 0] *= rescale[0];
    o[4 * j + 1] *= rescale[0];
    o[4 * j + 2] *= rescale[1];
    o[4 * j + 3] *= rescale[1];
  }
}

// The Hopper forward's shared memory, from its 1024-byte aligned base: Q (then each consumer
// warpgroup's O rows), kStages K and V tiles, then the barriers: Q full, and per stage K full,
// V full, K empty, V empty (the persistent kernel's own follow).
template <int kHeadDim>
struct Sm90ForwardBuffers {
  using Tr = Sm90ForwardTraits<kHeadDim>;
  __device__ __forceinline__ explicit Sm90ForwardBuffers(unsigned char* smem)
      : q(smem),
        k(q + Tr::kQBytes),
        v(k + Tr::kStages * Tr::kKvTileBytes),
        q_full(reinterpret_cast<uint64_t*>(v + Tr::kStages * Tr::kKvTileBytes)),
        k_full(q_full + 1),
        v_full(k_full + Tr::kStages),
        k_empty(v_full + Tr::kStages),
        v_empty(k_empty + Tr::kStages) {}
  unsigned char* q;
  unsigned char* k;
  unsigned char* v;
  uint64_t* q_full;
  uint64_t* k_full;
  uint64_t* v_full;
  uint64_t* k_empty;
  uint64_t* v_empty;
};

// The 1024-byte aligned base of the dynamic shared memory (the swizzle atom; the traits'
// kAlignSlack pays for the rounding).
__device__ __forceinline__ unsigned char* sm90_aligned_smem(unsigned char* raw) {
  return reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~static_cast<uintptr_t>(1023));
}

// K/V tiles a query tile starting at row m0 reads: up to its last row when causal.
template <int kHeadDim>
__device__ __forceinline__ int forward_key_tiles(const Sm90ForwardParams& p, int m0) {
  using Tr = Sm90ForwardTraits<kHeadDim>;
  const int key_end = p.causal ? min(p.seq_k, m0 + Tr::kBlockM) : p.seq_k;
  return (key_end + Tr::kBlockN - 1) / Tr::kBlockN;
}

// One thread: the Q-full and per-stage barriers (the empty ones take one arrival per consumer
// warp).
template <int kHeadDim>
__device__ __forceinline__ void init_forward_barriers(const Sm90ForwardBuffers<kHeadDim>& buf) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim>;
  mbarrier_init(buf.q_full, 1);
#pragma unroll
  for (int s = 0; s < Tr::kStages; ++s) {
    mbarrier_init(&buf.k_full[s], 1);
    mbarrier_init(&buf.v_full[s], 1);
    mbarrier_init(&buf.k_empty[s], 4 * Tr::kConsumerWarpgroups);
    mbarrier_init(&buf.v_empty[s], 4 * Tr::kConsumerWarpgroups);
  }
}

// The producer thread's load of the Q tile starting at row m0.
template <int kHeadDim>
__device__ __forceinline__ void load_forward_q(const Sm90ForwardParams& p, const Sm90ForwardBuffers<kHeadDim>& buf,
                                               int m0, int batch, int head) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim>;
  mbarrier_arrive_expect_tx(buf.q_full, Tr::kQBytes);
#pragma unroll
  for (int pn = 0; pn < Tr::kPanels; ++pn)
    tma_load_4d(buf.q + pn * Tr::kQPanelBytes, &p.q_map, buf.q_full, pn * 64, m0, head, batch);
}

// The producer thread's loads of K/V tile j into the stage ring's slot `loaded` (K/V tiles this
// CTA loaded before), each once the consumers have freed its stage.
template <int kHeadDim>
__device__ __forceinline__ void load_forward_kv(const Sm90ForwardParams& p, const Sm90ForwardBuffers<kHeadDim>& buf,
                                                int loaded, int j, int batch, int head) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim>;
  const int stage = loaded % Tr::kStages;
  const uint32_t free_phase = ((loaded / Tr::kStages) & 1) ^ 1;  // a fresh barrier passes parity 1
  unsigned char* k_dst = buf.k + stage * Tr::kKvTileBytes;
  unsigned char* v_dst = buf.v + stage * Tr::kKvTileBytes;
  mbarrier_wait(&buf.k_empty[stage], free_phase);
  mbarrier_arrive_expect_tx(&buf.k_full[stage], Tr::kKvTileBytes);
#pragma unroll
  for (int pn = 0; pn < Tr::kPanels; ++pn)
    tma_load_4d(k_dst + pn * Tr::kKvPanelBytes, &p.k_map, &buf.k_full[stage], pn * 64, j * Tr::kBlockN, head, batch);
  mbarrier_wait(&buf.v_empty[stage], free_phase);
  mbarrier_arrive_expect_tx(&buf.v_full[stage], Tr::kKvTileBytes);
#pragma unroll
  for (int pn = 0; pn < Tr::kPanels; ++pn)
    tma_load_4d(v_dst + pn * Tr::kKvPanelBytes, &p.v_map, &buf.v_full[stage], pn * 64, j * Tr::kBlockN, head, batch);
}

// Where a consumer warpgroup stages its O rows for the TMA store.
enum class OStaging {
  // Its own Q rows: Q is free for the next tile only once the store has read them (the one-tile
  // kernel, and the persistent one at d = 128, where shared memory holds nothing more).
  in_q_rows,
  // A buffer of their own: the warpgroups release Q (q_empty) as soon as the tile's last S is
  // computed, so the next tile's Q loads during the last softmax, P V and the epilogue, and the
  // store drains while the next tile runs (the persistent kernel at d = 64).
  own_buffer,
};

// The consumer warpgroups' work on one tile (query rows m0.., keys up to key_tiles tiles):
// S = Q K^T, online softmax, O += P V as the file's header describes, then O normalised, staged
// as kStaging says and stored by TMA, lse per row. `consumed`: K/V tiles this CTA's consumers
// took before (the stage ring's position); `q_phase`: the parity of Q's barrier. With
// OStaging::in_q_rows it returns when the warpgroup's store has read Q's rows (for thread 0 of
// the warpgroup; the others may be ahead); with own_buffer, o_buffer (kQBytes) takes O, each
// warp has arrived on q_empty, and the store may still be reading o_buffer.
template <typename T, int kHeadDim, OStaging kStaging = OStaging::in_q_rows>
__device__ __forceinline__ void consume_forward_tile(const Sm90ForwardParams& p, unsigned char* smem, int bh,
                                                     int batch, int head, int m0, int key_tiles, int consumed,
                                                     uint32_t q_phase, unsigned char* o_buffer = nullptr,
                                                     uint64_t* q_empty = nullptr) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim>;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStages = Tr::kStages;
  const Sm90ForwardBuffers<kHeadDim> buf(smem);
  const int wg = threadIdx.x / 128 - 1;
  const int wtid = threadIdx.x % 128;
  const int warp = wtid / 32;
  const int lane = wtid % 32;
  const int wg_row0 = m0 + 64 * wg;
  const int row0 = wg_row0 + 16 * warp + lane / 4;  // this thread's rows: row0, row0 + 8
  const uint32_t q_addr = smem_u32(buf.q) + 64 * wg * Tr::kRowBytes;

  float o[kHeadDim / 2];
#pragma unroll
  for (int i = 0; i < kHeadDim / 2; ++i) o[i] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.f, 0.f};
  float rescale[2];
  float s[kBlockN / 2];
  uint32_t pa[kBlockN / 16][4];

  // S = Q K^T of the tile in `stage`, over head-dim steps of 16 (4 per 64-column panel).
  auto issue_qk = [&](int stage) {
    const uint32_t k_addr = smem_u32(buf.k) + stage * Tr::kKvTileBytes;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kHeadDim / 16; ++kk) {
      const uint32_t offset = (kk % 4) * 32;
      const uint64_t a =
          make_smem_desc(q_addr + (kk / 4) * Tr::kQPanelBytes + offset, 16, 1024, kSwizzle128);
      const uint64_t b =
          make_smem_desc(k_addr + (kk / 4) * Tr::kKvPanelBytes + offset, 16, 1024, kSwizzle128);
      Wgmma<kBlockN>::template ss<T, 0, 0>(s, a, b, kk > 0);
    }
    wgmma_commit();
  };
  // O += P V over key steps of 16; V rows are the k dimension, its columns (64 per panel,
  // panels kKvPanelBytes apart) the n dimension, hence MN-major.
  auto issue_pv = [&](int stage) {
    const uint32_t v_addr = smem_u32(buf.v) + stage * Tr::kKvTileBytes;
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kBlockN / 16; ++ks) {
      const uint64_t b = make_smem_desc(v_addr + ks * 16 * Tr::kRowBytes, Tr::kKvPanelBytes,
                                        1024, kSwizzle128);
      Wgmma<kHeadDim>::template rs<T, 1>(o, pa[ks], b, true);
    }
    wgmma_commit();
  };
  auto needs_mask = [&](int j) {
    const int n0 = j * kBlockN;
    return n0 + kBlockN > p.seq_k || (p.causal && n0 + kBlockN - 1 > wg_row0);
  };
  auto release = [&](uint64_t* empty) {
    if (lane == 0) mbarrier_arrive(empty);
  };
  // Ping-pong turns: named barrier 3 + w is warpgroup w's turn to issue GEMMs; it completes
  // when w's 128 threads sync on it and the other warpgroup's 128 arrive. Each warpgroup has
  // key_tiles + 1 issue points; warpgroup 1 opens warpgroup 0's first turn and skips handing
  // over after its last, so every barrier sees as many arrivals as syncs.
  auto begin_turn = [&]() {
    if constexpr (Tr::kPingpong) named_barrier_sync(3 + wg, 256);
  };
  auto end_turn = [&](bool last_turn) {
    if constexpr (Tr::kPingpong) {
      if (!(last_turn && wg == 1)) named_barrier_arrive(3 + (wg ^ 1), 256);
    }
  };
  if constexpr (Tr::kPingpong) {
    if (wg == 1) named_barrier_arrive(3, 256);
  }

  auto stage_of = [&](int j) { return (consumed + j) % kStages; };
  auto phase_of = [&](int j) { return static_cast<uint32_t>(((consumed + j) / kStages) & 1); };
  mbarrier_wait(buf.q_full, q_phase);
  begin_turn();
  mbarrier_wait(&buf.k_full[stage_of(0)], phase_of(0));
  issue_qk(stage_of(0));
  end_turn(false);
  wgmma_wait<0>();
  fence_operand(s);
  release(&buf.k_empty[stage_of(0)]);
  // With its own O buffer, Q is free once the tile's last S is in registers.
  auto release_q_after = [&](int j) {
    if constexpr (kStaging == OStaging::own_buffer) {
      if (j == key_tiles - 1) release(q_empty);
    }
  };
  release_q_after(0);
  softmax_tile<kBlockN>(s, row_max, row_sum, rescale, 0, row0, needs_mask(0), p);
  convert_p<T, kBlockN>(s, pa);

  for (int j = 1; j < key_tiles; ++j) {
    const int stage = stage_of(j);
    const int prev = stage_of(j - 1);
    begin_turn();
    mbarrier_wait(&buf.k_full[stage], phase_of(j));
    issue_qk(stage);
    mbarrier_wait(&buf.v_full[prev], phase_of(j - 1));
    issue_pv(prev);
    end_turn(false);
    wgmma_wait<1>();  // S of tile j is ready; P V of tile j - 1 may still run
    fence_operand(s);
    release(&buf.k_empty[stage]);
    release_q_after(j);
    softmax_tile<kBlockN>(s, row_max, row_sum, rescale, j * kBlockN, row0, needs_mask(j), p);
    wgmma_wait<0>();
    fence_operand(o);
    fence_operand(pa);
    release(&buf.v_empty[prev]);
    rescale_o<kHeadDim>(o, rescale);
    convert_p<T, kBlockN>(s, pa);
  }
  const int last = stage_of(key_tiles - 1);
  begin_turn();
  mbarrier_wait(&buf.v_full[last], phase_of(key_tiles - 1));
  issue_pv(last);
  end_turn(true);
  wgmma_wait<0>();
  fence_operand(o);
  release(&buf.v_empty[last]);

  // Epilogue: normalise, stage O with the 128-byte swizzle TMA expects, then one thread stores
  // each 64-column panel.
  unsigned char* o_stage;
  if constexpr (kStaging == OStaging::own_buffer) {
    if (wtid == 0) bulk_wait_read<0>();  // the previous tile's store has read the buffer
    named_barrier_sync(1 + wg, 128);
    o_stage = o_buffer + 64 * wg * Tr::kRowBytes;
  } else {
    named_barrier_sync(1 + wg, 128);  // every warp of the warpgroup is done reading its Q rows
    o_stage = buf.q + 64 * wg * Tr::kRowBytes;
  }
  const int t = lane % 4;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    const int local = 16 * warp + lane / 4 + 8 * r;
#pragma unroll
    for (int j = 0; j < kHeadDim / 8; ++j) {
      const int chunk = (j % 8) ^ (local % 8);
      unsigned char* at = o_stage + (j / 8) * Tr::kQPanelBytes + local * Tr::kRowBytes +
                          chunk * 16 + 4 * t;
      *reinterpret_cast<uint32_t*>(at) =
          MmaElement<T>::pack(o[4 * j + 2 * r] * inv, o[4 * j + 2 * r + 1] * inv);
    }
    const int row = row0 + 8 * r;
    if (t == 0 && row < p.seq_q) {
      p.lse[static_cast<int64_t>(bh) * p.seq_q + row] =
          sum > 0.f ? row_max[r] * p.scale + logf(sum) : -INFINITY;
    }
  }
  fence_proxy_async();
  named_barrier_sync(1 + wg, 128);
  if (wtid == 0) {
#pragma unroll
    for (int pn = 0; pn < Tr::kPanels; ++pn)
      tma_store_4d(&p.o_map, o_stage + pn * Tr::kQPanelBytes, pn * 64, wg_row0, head, batch);
    bulk_commit();
    if constexpr (kStaging == OStaging::in_q_rows) bulk_wait_read<0>();
  }
}

}  // namespace sm90_forward

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
