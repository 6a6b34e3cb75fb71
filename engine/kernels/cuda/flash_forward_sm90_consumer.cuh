// The Hopper forward's consumer warpgroups: S = Q K^T, the online softmax and O += P V on one
// query tile, then its epilogue (flash_forward_sm90.cuh's header describes the schedule).
#pragma once

#include "kernels/cuda/flash_device_math.cuh"
#include "kernels/cuda/flash_forward_sm90_pipeline.cuh"
#include "kernels/cuda/sm90_wgmma.cuh"

#include <cmath>
#include <cstdint>

namespace stepscope::kernels::flash {

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
  if (mask) {
    // Element (j, e) holds key n0 + 2t + 8j + (e & 1) of row row0 + 8 (e >> 1); it stays where
    // that key is at most the row's last visible key. Offsets from the thread's first key, so
    // each test is one compare of a constant.
    const int first_key = n0 + 2 * (threadIdx.x % 4);
    const int last0 = (p.causal ? min(row0, p.seq_k - 1) : p.seq_k - 1) - first_key;
    const int last1 = (p.causal ? min(row0 + 8, p.seq_k - 1) : p.seq_k - 1) - first_key;
    if (last1 == last0 + 8) {
      // Causal rows within seq_k: row0 + 8 sees 8 more keys, so its element (j + 1, e + 2)
      // takes the same test as row0's (j, e), one compare for both (cuDNN's diagonal tiles do
      // the same): 34 compares a tile instead of 64, or 128 for two bounds an element.
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (8 * j + (e & 1) - 8 * (e >> 1) > last0) s[4 * j + e] = -INFINITY;
    } else {
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (8 * j + (e & 1) > (e < 2 ? last0 : last1)) s[4 * j + e] = -INFINITY;
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

// Where a consumer warpgroup stages its O rows for the TMA store.
enum class OStaging {
  // Its own Q rows: Q is free for the next tile only once the store has read them (the one-tile
  // kernel, whose K/V stages leave no room for more).
  in_q_rows,
  // A buffer of their own: the warpgroups release Q (q_empty) as soon as the tile's last S is
  // computed, so the next tile's Q loads during the last softmax, P V and the epilogue, and the
  // store drains while the next tile runs (the persistent kernel).
  own_buffer,
};

// The consumer warpgroups' work on one tile (query rows m0.., keys up to key_tiles tiles):
// S = Q K^T, online softmax, O += P V as the file's header describes, then O normalised, staged
// as kStaging says and stored by TMA, lse per row. `consumed`: K/V tiles this CTA's consumers
// took before (the stage ring's position); `q_phase`: the parity of Q's barrier. With
// OStaging::in_q_rows it returns when the warpgroup's store has read Q's rows (for thread 0 of
// the warpgroup; the others may be ahead); with own_buffer, o_buffer (kQBytes) takes O, each
// warp has arrived on q_empty, and the store may still be reading o_buffer.
template <typename T, int kHeadDim, OStaging kStaging = OStaging::in_q_rows,
          int kStageCount = sm90_forward_default_stages(kHeadDim)>
__device__ __forceinline__ void consume_forward_tile(const Sm90ForwardParams& p, unsigned char* smem, int bh,
                                                     int batch, int head, int m0, int key_tiles, int consumed,
                                                     uint32_t q_phase, unsigned char* o_buffer = nullptr,
                                                     uint64_t* q_empty = nullptr) {
  using namespace sm90;
  using Tr = Sm90ForwardTraits<kHeadDim, kStageCount>;
  constexpr int kBlockN = Tr::kBlockN;
  constexpr int kStages = Tr::kStages;
  const Sm90ForwardBuffers<kHeadDim, kStageCount> buf(smem);
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
  // Key tiles from mask_from on cross seq_k (from tile seq_k / kBlockN) or, causal, hold keys
  // after some of the warpgroup's rows (from tile (wg_row0 + 1) / kBlockN).
  const int seq_k_tiles_whole = p.seq_k / kBlockN;
  const int mask_from = p.causal ? min(seq_k_tiles_whole, (wg_row0 + 1) / kBlockN) : seq_k_tiles_whole;
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
  softmax_tile<kBlockN>(s, row_max, row_sum, rescale, 0, row0, mask_from <= 0, p);
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
    softmax_tile<kBlockN>(s, row_max, row_sum, rescale, j * kBlockN, row0, j >= mask_from, p);
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
  // Every row's sum is at least 1 (its largest score gives exp2(0)) unless the row sees no
  // key, so the fast reciprocal and logarithm (MUFU, no IEEE slow paths) are exact enough.
  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
    inv[r] = sum > 0.f ? __fdividef(1.f, sum) : 0.f;
    const int row = row0 + 8 * r;
    if (lane % 4 == 0 && row < p.seq_q) {
      p.lse[static_cast<int64_t>(bh) * p.seq_q + row] = sum > 0.f ? row_max[r] * p.scale + __logf(sum) : -INFINITY;
    }
  }
  // stmatrix, two 8-column blocks (jb, jb + 1) at a time: matrices 0 / 1 hold block jb's rows
  // 0-7 / 8-15 of the warp, 2 / 3 block jb + 1's, and lane 8 i + r gives the address of row r of
  // matrix i. With the 128-byte swizzle, 16-byte chunk c of row x sits at chunk c ^ (x % 8);
  // for even jb that is (jb % 8) ^ (i / 2) ^ (lane % 8), hence one per-lane XOR term.
  const int matrix = lane / 8;
  const int local = 16 * warp + lane % 8 + 8 * (matrix & 1);
  const uint32_t o_row = smem_u32(o_stage) + local * Tr::kRowBytes;
  const uint32_t chunk_xor = ((matrix >> 1) ^ (lane % 8)) * 16;
#pragma unroll
  for (int jb = 0; jb < kHeadDim / 8; jb += 2) {
    stmatrix_x4(o_row + (jb / 8) * Tr::kQPanelBytes + (((jb % 8) * 16) ^ chunk_xor),
                MmaElement<T>::pack(o[4 * jb + 0] * inv[0], o[4 * jb + 1] * inv[0]),
                MmaElement<T>::pack(o[4 * jb + 2] * inv[1], o[4 * jb + 3] * inv[1]),
                MmaElement<T>::pack(o[4 * jb + 4] * inv[0], o[4 * jb + 5] * inv[0]),
                MmaElement<T>::pack(o[4 * jb + 6] * inv[1], o[4 * jb + 7] * inv[1]));
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

}  // namespace stepscope::kernels::flash
