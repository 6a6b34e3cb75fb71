// FlashAttention backward for Hopper (sm_90a): wgmma, TMA and warp specialisation.
//
// Grid: one CTA per (key tile of 128, batch*head), heaviest key tiles (the first, under causal
// masking) launched first. Warpgroup 0 produces: K and V once, then per query tile Q and dO
// (TMA, 2 stages, mbarriers) and the tile's lse*log2(e) and D rows. Warpgroups 1 and 2
// consume, each owning 64 keys:
//   S^T = K Q^T, dP^T = V dO^T                   (wgmma, both operands from shared memory)
//   P^T = exp2(S^T scale log2e - lse log2e), dS^T = P^T (dP^T - D)   (registers; masked)
//   dV += P^T dO, dK += dS^T Q                   (wgmma, A = P^T / dS^T from registers)
//   dS^T -> shared memory; dQ[:, half] = dS K    (wgmma over all 128 keys; each consumer
//                                                 computes half of the head-dim columns)
//   dQ -> swizzled fp32 staging -> TMA reduce-add into the fp32 accumulator, per consumer
// dK (times the softmax scale) and dV go straight from registers to global memory.
// 64 tile (kOverlapDq): 128 query rows per step, each consumer computing dQ for 64 of them over
// all columns, and dQ of step it - 1 issued right behind dV/dK of step it (double-buffered dS^T),
// so the tensor cores need no barrier between them; one consumer barrier per step.
#pragma once

#include "kernels/cuda/flash_backward_sm90_traits.h"
#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_kernel_params.h"
#include "kernels/cuda/sm90_async_copy.cuh"
#include "kernels/cuda/sm90_wgmma.cuh"

#include <cuda.h>

#include <cmath>
#include <cstdint>

namespace stepscope::kernels::flash {

struct Sm90BackwardParams {
  CUtensorMap q, k, v, d_o;  // (head_dim, seq, heads, batch) views, see sm90_tensor_map.h
  CUtensorMap dq_accum;      // fp32 (head_dim, seq_q, batch*heads), reduced into
  BackwardParams p;
};

// dQ (this consumer's part) = dS K from the dS^T buffer at ds (128 keys x kBlockM queries,
// 64-query blocks of 128 x 128 bytes, 128-byte swizzle) and K; A = dS^T and B = K are both read
// MN-major. K-dim = the tile's 128 keys.
template <typename T, typename Tr>
__device__ __forceinline__ void sm90_bwd_issue_dq(float (&dq)[Tr::kDqCols / 2], uint32_t ds,
                                                  uint32_t k_base, int wg) {
  using namespace sm90;
#pragma unroll
  for (int kk = 0; kk < Tr::kBlockN / 16; ++kk) {
    uint64_t a, b;
    if constexpr (Tr::kDqSplitRows) {
      static_assert(Tr::kKSwizzleBytes == 64, "row-split dQ reads the 64-byte-swizzled K");
      a = make_smem_desc(ds + wg * (Tr::kBlockN * 128) + kk * 2048, 8192, 1024, kSwizzle128);
      b = make_smem_desc(k_base + kk * 1024, Tr::kKBlockBytes, 512, kSwizzle64);
    } else {
      a = make_smem_desc(ds + kk * 2048, 8192, 1024, kSwizzle128);
      if constexpr (Tr::kKSwizzleBytes == 128) {
        b = make_smem_desc(k_base + wg * Tr::kKBlockBytes + kk * 2048, 8192, 1024, kSwizzle128);
      } else {
        b = make_smem_desc(k_base + wg * Tr::kKBlockBytes + kk * 1024, 8192, 512, kSwizzle64);
      }
    }
    Wgmma<Tr::kDqCols>::template ss<T, 1, 1>(dq, a, b, kk > 0);
  }
}

// Stages this consumer's dQ (64 rows x kDqCols fp32) at dq_base as 32-column boxes (64 rows x
// 128 bytes, 128-byte swizzle: 16-byte chunk c of row r at chunk c ^ (r % 8), r % 8 == g).
template <typename Tr>
__device__ __forceinline__ void sm90_bwd_stage_dq(const float (&dq)[Tr::kDqCols / 2], uint32_t dq_base,
                                                  int warp_in_wg, int g, int t) {
#pragma unroll
  for (int j = 0; j < Tr::kDqCols / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = 16 * warp_in_wg + g + 8 * h;
      const int col = 8 * j + 2 * t;
      const uint32_t addr =
          dq_base + (col / 32) * 8192 + row * 128 + ((((col % 32) / 4) ^ g) * 16) + (col % 4) * 4;
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(dq[4 * j + 2 * h]),
                   "f"(dq[4 * j + 2 * h + 1])
                   : "memory");
    }
}

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(Sm90BackwardTraits<kHeadDim>::kThreads, 1)
    flash_backward_sm90_kernel(const __grid_constant__ Sm90BackwardParams args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  using Tr = Sm90BackwardTraits<kHeadDim>;
  using E = MmaElement<T>;
  constexpr int kBlockM = Tr::kBlockM;
  constexpr int kBlockN = Tr::kBlockN;
  const BackwardParams& p = args.p;

  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw_addr = smem_u32(smem_raw);
  unsigned char* smem = smem_raw + ((1024 - (raw_addr & 1023)) & 1023);
  const uint32_t base = smem_u32(smem);
  float* s_lse = reinterpret_cast<float*>(smem + Tr::kOffLse);
  float* s_d = reinterpret_cast<float*>(smem + Tr::kOffD);
  float* s_dq = reinterpret_cast<float*>(smem + Tr::kOffDq);
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + Tr::kOffBars);
  uint64_t* full = bars;                  // [kStages]: Q, dO, lse, D of a stage landed
  uint64_t* empty = bars + Tr::kStages;   // [kStages]: consumers are done with a stage
  uint64_t* kv_bar = bars + 2 * Tr::kStages;

  const int bh_count = static_cast<int>(gridDim.x) / p.key_tiles;
  const int bh = static_cast<int>(blockIdx.x) % bh_count;
  const int key_tile = static_cast<int>(blockIdx.x) / bh_count;
  const int batch = bh / p.heads;
  const int head = bh % p.heads;
  const int n0 = key_tile * kBlockN;
  // Queries before n0 see none of these keys under causal masking (n0 is a multiple of kBlockM).
  const int m_begin = p.causal ? n0 : 0;
  const int m_steps = m_begin < p.seq_q ? (p.seq_q - m_begin + kBlockM - 1) / kBlockM : 0;

  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < Tr::kStages; ++s) {
      mbarrier_init(&full[s], 32);                           // the producer warp's lanes
      mbarrier_init(&empty[s], Tr::kConsumerThreads / 32);   // one arrival per consumer warp
    }
    mbarrier_init(kv_bar, 1);
    fence_barrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    // ---------------- producer ----------------
    setmaxnreg_dec<Tr::kProducerRegs>();
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (warp != 0) return;
    if (lane == 0) {
      tma_prefetch_map(&args.q);
      tma_prefetch_map(&args.d_o);
      mbarrier_arrive_expect_tx(kv_bar, 2 * Tr::kKBytes);
#pragma unroll
      for (int b = 0; b < Tr::kKBlocks; ++b)
        tma_load_4d(smem + Tr::kOffK + b * Tr::kKBlockBytes, &args.k, kv_bar, b * Tr::kKBlockCols, n0,
                    head, batch);
#pragma unroll
      for (int b = 0; b < Tr::kColBlocks; ++b)
        tma_load_4d(smem + Tr::kOffV + b * Tr::kVBlockBytes, &args.v, kv_bar, b * 64, n0, head, batch);
    }
    const float* lse = p.lse + static_cast<int64_t>(bh) * p.seq_q;
    const float* d_rowsum = p.d_rowsum + static_cast<int64_t>(bh) * p.seq_q;
    for (int it = 0; it < m_steps; ++it) {
      const int s = it % Tr::kStages;
      const int m0 = m_begin + it * kBlockM;
      if (it >= Tr::kStages) mbarrier_wait_asm_loop(&empty[s], ((it / Tr::kStages) - 1) & 1);
      if (lane == 0) {
        mbarrier_expect_tx(&full[s], 2 * Tr::kQBytes);
#pragma unroll
        for (int b = 0; b < Tr::kColBlocks; ++b) {
          tma_load_4d(smem + Tr::kOffQ + s * Tr::kQBytes + b * Tr::kQBlockBytes, &args.q, &full[s],
                      b * 64, m0, head, batch);
          tma_load_4d(smem + Tr::kOffDo + s * Tr::kQBytes + b * Tr::kQBlockBytes, &args.d_o, &full[s],
                      b * 64, m0, head, batch);
        }
      }
      // Rows past seq_q: lse = +inf makes P = 0 there, and D = 0.
#pragma unroll
      for (int r = lane; r < kBlockM; r += 32) {
        const int row = m0 + r;
        s_lse[s * kBlockM + r] = row < p.seq_q ? lse[row] * static_cast<float>(M_LOG2E) : INFINITY;
        s_d[s * kBlockM + r] = row < p.seq_q ? d_rowsum[row] : 0.f;
      }
      mbarrier_arrive(&full[s]);
    }
    return;
  }

  // ---------------- consumers ----------------
  setmaxnreg_inc<Tr::kConsumerRegs>();
  const int wg = warpgroup - 1;          // which 64 keys of the tile
  const int ctid = threadIdx.x - 128;    // 0 .. kConsumerThreads-1
  const int wtid = ctid % 128;
  const int warp_in_wg = wtid / 32;
  const int lane = wtid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int key_row0 = 64 * wg + 16 * warp_in_wg;  // this warp's first key within the tile

  const uint32_t k_base = base + Tr::kOffK;
  const uint32_t v_base = base + Tr::kOffV;
  const uint32_t ds_base = base + Tr::kOffDs;

  float dv[kHeadDim / 2];
  float dk[kHeadDim / 2];
#pragma unroll
  for (int i = 0; i < kHeadDim / 2; ++i) dv[i] = dk[i] = 0.f;

  mbarrier_wait_asm_loop(kv_bar, 0);
  const bool key_tail = n0 + kBlockN > p.seq_k;

  if constexpr (Tr::kOverlapDq) {
    // Step it issues S^T(it), dP^T(it) and then dQ(it - 1) (from the dS^T buffer of step
    // it - 1), so dQ runs on the tensor cores under this step's exponentials; dV/dK(it) stay in
    // flight into the next step. At it == 0 the dQ wgmma reads a buffer no step has written
    // and its result is dropped (it keeps the wgmma sequence free of branches).
    float dq[Tr::kDqCols / 2];
#pragma unroll
    for (int i = 0; i < Tr::kDqCols / 2; ++i) dq[i] = 0.f;
    for (int it = 0; it < m_steps; ++it) {
      const int s = it % Tr::kStages;
      const int m0 = m_begin + it * kBlockM;
      const uint32_t q_base = base + Tr::kOffQ + s * Tr::kQBytes;
      const uint32_t do_base = base + Tr::kOffDo + s * Tr::kQBytes;
      const uint32_t ds_cur = ds_base + (it & 1) * Tr::kDsBytes;
      const uint32_t ds_prev = ds_base + ((it + 1) & 1) * Tr::kDsBytes;
      mbarrier_wait_asm_loop(&full[s], (it / Tr::kStages) & 1);

      float st[kBlockM / 2];
      float dpt[kBlockM / 2];
      fence_operand(dq);
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < kHeadDim / 16; ++k) {
        uint64_t a;
        if constexpr (Tr::kKSwizzleBytes == 128) {
          a = make_smem_desc(k_base + (k / 4) * Tr::kKBlockBytes + 64 * wg * 128 + (k % 4) * 32, 16, 1024,
                             kSwizzle128);
        } else {
          a = make_smem_desc(k_base + (k / 2) * Tr::kKBlockBytes + 64 * wg * 64 + (k % 2) * 32, 16, 512,
                             kSwizzle64);
        }
        const uint64_t b = make_smem_desc(q_base + (k / 4) * Tr::kQBlockBytes + (k % 4) * 32, 16, 1024,
                                          kSwizzle128);
        Wgmma<kBlockM>::template ss<T, 0, 0>(st, a, b, k > 0);
      }
      wgmma_commit();
#pragma unroll
      for (int k = 0; k < kHeadDim / 16; ++k) {
        const uint64_t a = make_smem_desc(v_base + (k / 4) * Tr::kVBlockBytes + 64 * wg * 128 + (k % 4) * 32,
                                          16, 1024, kSwizzle128);
        const uint64_t b = make_smem_desc(do_base + (k / 4) * Tr::kQBlockBytes + (k % 4) * 32, 16, 1024,
                                          kSwizzle128);
        Wgmma<kBlockM>::template ss<T, 0, 0>(dpt, a, b, k > 0);
      }
      wgmma_commit();
      if constexpr (Tr::kDqEarly) {
        sm90_bwd_issue_dq<T, Tr>(dq, ds_prev, k_base, wg);
        wgmma_commit();
      }

      const float* lse_tile = s_lse + s * kBlockM;
      const float* d_tile = s_d + s * kBlockM;
      wgmma_wait<Tr::kDqEarly ? 2 : 1>();  // S^T(it) and all before it (dV/dK(it - 1)) are done
      fence_operand(st);
      fence_operand(dv);
      fence_operand(dk);
      if (it > 0 && lane == 0) mbarrier_arrive(&empty[(it - 1) % Tr::kStages]);
      const bool needs_mask = key_tail || (p.causal && n0 + kBlockN - 1 > m0);
      const int key0 = n0 + key_row0 + g;
#pragma unroll
      for (int j = 0; j < kBlockM / 8; ++j) {
        const float2 l = *reinterpret_cast<const float2*>(lse_tile + 8 * j + 2 * t);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int query = m0 + 8 * j + 2 * t + (e & 1);
          const int key = key0 + 8 * (e >> 1);
          const bool hidden = needs_mask && (key >= p.seq_k || (p.causal && key > query));
          const float x = fmaf(st[4 * j + e], p.scale_log2, -((e & 1) ? l.y : l.x));
          st[4 * j + e] = hidden ? 0.f : exp2f(x);
        }
      }
      uint32_t pa[kBlockM / 16][4];
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) pa[kk][r] = E::pack(st[8 * kk + 2 * r], st[8 * kk + 2 * r + 1]);

      wgmma_wait<Tr::kDqEarly ? 1 : 0>();  // dP^T(it)
      fence_operand(dpt);
      uint32_t dsa[kBlockM / 16][4];
#pragma unroll
      for (int j = 0; j < kBlockM / 8; ++j) {
        const float2 dd = *reinterpret_cast<const float2*>(d_tile + 8 * j + 2 * t);
#pragma unroll
        for (int e = 0; e < 4; ++e)
          dpt[4 * j + e] = st[4 * j + e] * (dpt[4 * j + e] - ((e & 1) ? dd.y : dd.x));
      }
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) dsa[kk][r] = E::pack(dpt[8 * kk + 2 * r], dpt[8 * kk + 2 * r + 1]);

      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        const uint64_t b = make_smem_desc(do_base + kk * 2048, Tr::kQBlockBytes, 1024, kSwizzle128);
        Wgmma<kHeadDim>::template rs<T, 1>(dv, pa[kk], b, true);
      }
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        const uint64_t b = make_smem_desc(q_base + kk * 2048, Tr::kQBlockBytes, 1024, kSwizzle128);
        Wgmma<kHeadDim>::template rs<T, 1>(dk, dsa[kk], b, true);
      }
      wgmma_commit();
      if constexpr (!Tr::kDqEarly) {
        sm90_bwd_issue_dq<T, Tr>(dq, ds_prev, k_base, wg);
        wgmma_commit();
      }

      // dS^T(it) into its buffer (last read by dQ(it - 2), finished before the previous step's
      // barrier in both consumers).
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = key_row0 + g + 8 * (r & 1);
          const int chunk = 2 * (kk % 4) + (r >> 1);  // within 64-query block kk / 4
          const uint32_t addr = ds_cur + (kk / 4) * (kBlockN * 128) + row * 128 + ((chunk ^ g) * 16) + t * 4;
          asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(dsa[kk][r]) : "memory");
        }

      // dQ(it - 1) (early: dV/dK(it) may still run; late: dQ is the last group).
      wgmma_wait<Tr::kDqEarly ? 1 : 0>();
      fence_operand(dq);
      fence_operand(pa[0]);
      fence_operand(dsa[0]);
      // Two buffers: stage dQ(it - 1) in buffer (it - 1) & 1, whose previous reduce (dQ(it - 3))
      // finished reading before the previous step's barrier. One buffer: stage after the
      // barrier, once the reduce issued last step has read it.
      const uint32_t dq_buf = base + Tr::kOffDq + (Tr::kDqBuffers == 2 ? ((it + 1) & 1) * Tr::kDqBytes : 0);
      const uint32_t dq_mine = dq_buf + wg * (Tr::kDqCols / 32) * 8192;
      if constexpr (Tr::kDqBuffers == 2) {
        if (it > 0) sm90_bwd_stage_dq<Tr>(dq, dq_mine, warp_in_wg, g, t);
      }
      fence_proxy_async();
      if (wtid == 0) bulk_wait_read<0>();  // the reduce issued last step has read its staging
      named_barrier_sync(1, Tr::kConsumerThreads);
      if constexpr (Tr::kDqBuffers == 1) {
        if (it > 0) {
          sm90_bwd_stage_dq<Tr>(dq, dq_mine, warp_in_wg, g, t);
          fence_proxy_async();
          named_barrier_sync(2 + wg, 128);
        }
      }
      if (it > 0 && wtid == 0) {
#pragma unroll
        for (int b = 0; b < Tr::kDqCols / 32; ++b) {
          const int col0 = (Tr::kDqSplitRows ? 0 : wg * Tr::kDqCols) + 32 * b;
          if (col0 < p.head_dim) {
            tma_reduce_add_3d(&args.dq_accum, smem + (dq_mine - base) + b * 8192, col0,
                              m0 - kBlockM + (Tr::kDqSplitRows ? 64 * wg : 0), bh);
          }
        }
        bulk_commit();
      }
    }
    wgmma_wait<0>();  // dV/dK of the last step
    fence_operand(dv);
    fence_operand(dk);
    if (m_steps > 0) {
      // dQ of the last step: its dS^T is in shared memory since the last barrier.
      const int last = m_steps - 1;
      const uint32_t ds_last = ds_base + (last & 1) * Tr::kDsBytes;
      fence_operand(dq);
      wgmma_fence();
sm90_bwd_issue_dq<T, Tr>(dq, ds_last, k_base, wg);
      wgmma_commit();
      wgmma_wait<0>();
      fence_operand(dq);
      fence_operand(dv);
      fence_operand(dk);
      const uint32_t dq_buf = base + Tr::kOffDq + (Tr::kDqBuffers == 2 ? (last & 1) * Tr::kDqBytes : 0);
      const uint32_t dq_mine = dq_buf + wg * (Tr::kDqCols / 32) * 8192;
      if constexpr (Tr::kDqBuffers == 1) {
        if (wtid == 0) bulk_wait_read<0>();
        named_barrier_sync(2 + wg, 128);
      }
      sm90_bwd_stage_dq<Tr>(dq, dq_mine, warp_in_wg, g, t);
      fence_proxy_async();
      named_barrier_sync(2 + wg, 128);
      if (wtid == 0) {
#pragma unroll
        for (int b = 0; b < Tr::kDqCols / 32; ++b) {
          const int col0 = (Tr::kDqSplitRows ? 0 : wg * Tr::kDqCols) + 32 * b;
          if (col0 < p.head_dim) {
            tma_reduce_add_3d(&args.dq_accum, smem + (dq_mine - base) + b * 8192, col0,
                              m_begin + last * kBlockM + (Tr::kDqSplitRows ? 64 * wg : 0), bh);
          }
        }
        bulk_commit();
      }
    }
  } else {
    for (int it = 0; it < m_steps; ++it) {
      const int s = it % Tr::kStages;
      const int m0 = m_begin + it * kBlockM;
      const uint32_t q_base = base + Tr::kOffQ + s * Tr::kQBytes;
      const uint32_t do_base = base + Tr::kOffDo + s * Tr::kQBytes;
      mbarrier_wait_asm_loop(&full[s], (it / Tr::kStages) & 1);

      // S^T = K Q^T and dP^T = V dO^T: 64 keys x 64 queries each, K-dim = head dim.
      float st[32];
      float dpt[32];
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < kHeadDim / 16; ++k) {
        uint64_t a;
        if constexpr (Tr::kKSwizzleBytes == 128) {
          a = make_smem_desc(k_base + (k / 4) * Tr::kKBlockBytes + 64 * wg * 128 + (k % 4) * 32, 16, 1024,
                             kSwizzle128);
        } else {
          a = make_smem_desc(k_base + (k / 2) * Tr::kKBlockBytes + 64 * wg * 64 + (k % 2) * 32, 16, 512,
                             kSwizzle64);
        }
        const uint64_t b = make_smem_desc(q_base + (k / 4) * Tr::kQBlockBytes + (k % 4) * 32, 16, 1024,
                                          kSwizzle128);
        Wgmma<64>::template ss<T, 0, 0>(st, a, b, k > 0);
      }
      wgmma_commit();
#pragma unroll
      for (int k = 0; k < kHeadDim / 16; ++k) {
        const uint64_t a = make_smem_desc(v_base + (k / 4) * Tr::kVBlockBytes + 64 * wg * 128 + (k % 4) * 32,
                                          16, 1024, kSwizzle128);
        const uint64_t b = make_smem_desc(do_base + (k / 4) * Tr::kQBlockBytes + (k % 4) * 32, 16, 1024,
                                          kSwizzle128);
        Wgmma<64>::template ss<T, 0, 0>(dpt, a, b, k > 0);
      }
      wgmma_commit();

      // Column c of this thread's fragment j is query 8j + 2t + (c & 1); row is key g + 8*(c >> 1).
      const float* lse_tile = s_lse + s * kBlockM;
      const float* d_tile = s_d + s * kBlockM;
      wgmma_wait<1>();
      fence_operand(st);
      const bool needs_mask = key_tail || (p.causal && n0 + kBlockN - 1 > m0);
      const int key0 = n0 + key_row0 + g;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 l = *reinterpret_cast<const float2*>(lse_tile + 8 * j + 2 * t);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int query = m0 + 8 * j + 2 * t + (e & 1);
          const int key = key0 + 8 * (e >> 1);
          const bool hidden = needs_mask && (key >= p.seq_k || (p.causal && key > query));
          const float x = fmaf(st[4 * j + e], p.scale_log2, -((e & 1) ? l.y : l.x));
          st[4 * j + e] = hidden ? 0.f : exp2f(x);
        }
      }
      uint32_t pa[4][4];
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) pa[kk][r] = E::pack(st[8 * kk + 2 * r], st[8 * kk + 2 * r + 1]);

      wgmma_wait<0>();
      fence_operand(dpt);
      uint32_t dsa[4][4];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 dd = *reinterpret_cast<const float2*>(d_tile + 8 * j + 2 * t);
#pragma unroll
        for (int e = 0; e < 4; ++e) dpt[4 * j + e] = st[4 * j + e] * (dpt[4 * j + e] - ((e & 1) ? dd.y : dd.x));
      }
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) dsa[kk][r] = E::pack(dpt[8 * kk + 2 * r], dpt[8 * kk + 2 * r + 1]);

      // dV += P^T dO and dK += dS^T Q: A from registers, B = dO / Q read MN-major (head dim
      // contiguous); K-dim = the 64 queries.
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const uint64_t b = make_smem_desc(do_base + kk * 2048, Tr::kQBlockBytes, 1024, kSwizzle128);
        Wgmma<kHeadDim>::template rs<T, 1>(dv, pa[kk], b, true);
      }
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const uint64_t b = make_smem_desc(q_base + kk * 2048, Tr::kQBlockBytes, 1024, kSwizzle128);
        Wgmma<kHeadDim>::template rs<T, 1>(dk, dsa[kk], b, true);
      }
      wgmma_commit();

      // dS^T to shared memory: 128 key rows x 64 queries, 128-byte swizzle (16-byte chunk j of
      // row r lands at chunk j ^ (r % 8)); r % 8 == g here.
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = key_row0 + g + 8 * (r & 1);
          const int chunk = 2 * kk + (r >> 1);
          const uint32_t addr = ds_base + row * 128 + ((chunk ^ g) * 16) + t * 4;
          asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(dsa[kk][r]) : "memory");
        }
      fence_proxy_async();
      if (wtid == 0) bulk_wait_read<0>();  // this consumer's last dQ reduce has read its staging
      named_barrier_sync(1, Tr::kConsumerThreads);

      // dQ[:, wg half] = dS K: M = 64 queries (dS^T read MN-major), N = kHeadDim / 2,
      // K-dim = the tile's 128 keys (K read MN-major: head dim contiguous).
      float dq[Tr::kDqCols / 2];
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        const uint64_t a = make_smem_desc(ds_base + kk * 2048, 8192, 1024, kSwizzle128);
        uint64_t b;
        if constexpr (Tr::kKSwizzleBytes == 128) {
          b = make_smem_desc(k_base + wg * Tr::kKBlockBytes + kk * 2048, 8192, 1024, kSwizzle128);
        } else {
          b = make_smem_desc(k_base + wg * Tr::kKBlockBytes + kk * 1024, 8192, 512, kSwizzle64);
        }
        Wgmma<Tr::kDqCols>::template ss<T, 1, 1>(dq, a, b, kk > 0);
      }
      wgmma_commit();
      wgmma_wait<0>();
      fence_operand(dq);
      fence_operand(dv);
      fence_operand(dk);
      fence_operand(pa[0]);
      fence_operand(dsa[0]);
      if (lane == 0) mbarrier_arrive(&empty[s]);  // Q, dO, lse, D of this stage are free

      // Stage this consumer's dQ columns as 32-column fp32 boxes (64 rows x 128 bytes, 128-byte
      // swizzle: 16-byte chunk c of row r at chunk c ^ (r % 8), and r % 8 == g here) and reduce
      // them into the accumulator with TMA; rows and columns outside the map are skipped.
      const uint32_t dq_base = base + Tr::kOffDq + wg * (Tr::kDqCols / 32) * 8192;
#pragma unroll
      for (int j = 0; j < Tr::kDqCols / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = 16 * warp_in_wg + g + 8 * h;
          const int col = 8 * j + 2 * t;  // within this consumer's columns
          const uint32_t addr = dq_base + (col / 32) * 8192 + row * 128 +
                                ((((col % 32) / 4) ^ g) * 16) + (col % 4) * 4;
          asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(dq[4 * j + 2 * h]),
                       "f"(dq[4 * j + 2 * h + 1])
                       : "memory");
        }
      fence_proxy_async();
      named_barrier_sync(2 + wg, 128);
      if (wtid == 0) {
#pragma unroll
        for (int b = 0; b < Tr::kDqCols / 32; ++b) {
          const int col0 = wg * Tr::kDqCols + 32 * b;
          if (col0 < p.head_dim) {
            tma_reduce_add_3d(&args.dq_accum, smem + Tr::kOffDq + (col0 / 32) * 8192, col0, m0, bh);
          }
        }
        bulk_commit();
      }
    }
  }

  // dK (scaled) and dV straight from the accumulators: rows = keys, pairs of columns.
  T* dk_out = p.dk.head<T>(batch, head);
  T* dv_out = p.dv.head<T>(batch, head);
#pragma unroll
  for (int j = 0; j < kHeadDim / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int key = n0 + key_row0 + g + 8 * h;
      const int col = 8 * j + 2 * t;
      if (key < p.seq_k && col < p.head_dim) {
        *reinterpret_cast<uint32_t*>(dk_out + static_cast<int64_t>(key) * p.dk.row_stride + col) =
            E::pack(dk[4 * j + 2 * h] * p.scale, dk[4 * j + 2 * h + 1] * p.scale);
        *reinterpret_cast<uint32_t*>(dv_out + static_cast<int64_t>(key) * p.dv.row_stride + col) =
            E::pack(dv[4 * j + 2 * h], dv[4 * j + 2 * h + 1]);
      }
    }
  if (wtid == 0) bulk_wait<0>();
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a target without sm_90a features: the host never launches this
#endif
}

}  // namespace stepscope::kernels::flash
