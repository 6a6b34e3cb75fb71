// RMSNorm forward and backward (see rms_norm_kernels.h). A row is handled by `threads` threads
// (one warp for rows of up to 32 x P packs, else a group of warps); each thread holds P packs of
// N elements of the row in registers, so every input byte is read once. N is 16 bytes of x (4
// fp32 or 8 bf16/fp16: one LDG.128 a pack) where the row length and alignment allow, else 1.
// The backward's dweight is summed per block in shared memory and then over blocks by a second
// kernel, both in fixed orders: no atomics, the same bits every run.
#include "kernels/cuda/fused/rms_norm_kernels.h"

#include <algorithm>
#include <climits>
#include <type_traits>

#include "kernels/cuda/fused/norm_gate_common.cuh"

namespace stepscope::kernels {

namespace {

using namespace norm_gate;

// Rows get more packs a thread only past this many threads a row.
constexpr int kRowThreads = 256;
// Blocks aim at this many threads: several rows a block when rows are short. The backward's
// are larger so that fewer blocks (fewer partial dweight rows) cover the GPU.
constexpr int kForwardBlockThreads = 256;
constexpr int kBackwardBlockThreads = 512;

// The sum over the threads of one row (blockDim.x of them, threadIdx.y picks the row); every
// thread of the row gets the same bits. Every thread of the block must call it (it syncs).
__device__ float row_sum(float v, float* warp_sums) {
  v = warp_sum(v);
  const int warps = blockDim.x / 32;
  if (warps == 1) return v;
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.y * warps + threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0.f;
  for (int i = 0; i < warps; ++i) total += warp_sums[threadIdx.y * warps + i];
  __syncthreads();  // read before the next row writes
  return total;
}

// Scalar rows (N = 1) may need 1024 threads; vectorised ones at most 512.
template <int N>
constexpr int max_threads() {
  return N == 1 ? 1024 : 512;
}
// The backward asks for two resident blocks of vectorised rows (at most 64 registers): left
// free, the compiler takes ~80 for a bf16 row of 2560 and fewer rows fit in flight (measured
// on an H100: 15.5 us against 16.9 us for [1024, 2560]). Scalar rows keep 1024 threads.
template <int N>
constexpr int backward_min_blocks() {
  return N == 1 ? 1 : 2;
}

template <class Tx, class Ty, int N, int P>
__global__ void __launch_bounds__(max_threads<N>(), 1)
    rms_norm_forward_kernel(const Tx* __restrict__ x, const float* __restrict__ weight, Ty* __restrict__ y,
                            float* __restrict__ inv_rms, int64_t rows, int d, float eps) {
  __shared__ float warp_sums[32];
  const int packs = d / N;
  // The loop bound is the same for the whole block, so every thread reaches row_sum's syncs.
  for (int64_t base = int64_t{blockIdx.x} * blockDim.y; base < rows; base += int64_t{gridDim.x} * blockDim.y) {
    const int64_t row = base + threadIdx.y;
    const bool active = row < rows;
    // Every load of the row is issued before any is used; packs stay raw (bf16 in half the
    // registers of floats) and are unpacked again for the output.
    Pack<N, Tx> xs[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int k = threadIdx.x + p * blockDim.x;
      if (active && k < packs) xs[p] = load_pack<N>(x + row * d + int64_t{k} * N);
    }
    float squares = 0.f;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int k = threadIdx.x + p * blockDim.x;
      if (active && k < packs) {
        float v[N];
        unpack(xs[p], v);
#pragma unroll
        for (int i = 0; i < N; ++i) squares += v[i] * v[i];
      }
    }
    // 1/sqrt rather than rsqrtf: the reference's rounding (rsqrtf is off by up to 2 ulp).
    const float inv = 1.f / sqrtf(row_sum(squares, warp_sums) / static_cast<float>(d) + eps);
    if (!active) continue;
    if (threadIdx.x == 0) inv_rms[row] = inv;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int k = threadIdx.x + p * blockDim.x;
      if (k < packs) {
        float v[N], w[N], out[N];
        unpack(xs[p], v);
        load_floats<N>(weight + int64_t{k} * N, w);
#pragma unroll
        for (int i = 0; i < N; ++i) out[i] = v[i] * inv * w[i];  // (x * inv) * w, the eager order
        store_floats<N>(y + row * d + int64_t{k} * N, out);
      }
    }
  }
}

// dx = inv * (g - x_hat * mean(g * x_hat)) with g = w * dy, x_hat = x * inv, per row. Each
// thread also sums dy * x_hat of its columns over the rows it visits (grid-stride) in shared
// memory, not registers (registers bound how many rows are in flight); at the end the block's
// rows are added in row order and the block writes one partial dweight row.
template <class Tdy, class Tx, int N, int P>
__global__ void __launch_bounds__(max_threads<N>(), backward_min_blocks<N>())
    rms_norm_backward_kernel(const Tdy* __restrict__ dy, const Tx* __restrict__ x, const float* __restrict__ weight,
                             const float* __restrict__ inv_rms, Tx* __restrict__ dx, float* __restrict__ partial,
                             int64_t rows, int d) {
  __shared__ float warp_sums[32];
  // [rows of the block][N][threads * P]: a thread's cells, consecutive threads side by side.
  extern __shared__ float column_sums[];
  const int packs = d / N, slots = blockDim.x * P;
  float* mine = column_sums + threadIdx.y * N * slots + threadIdx.x;
#pragma unroll
  for (int p = 0; p < P; ++p) {
#pragma unroll
    for (int i = 0; i < N; ++i) mine[i * slots + p * blockDim.x] = 0.f;
  }
  for (int64_t base = int64_t{blockIdx.x} * blockDim.y; base < rows; base += int64_t{gridDim.x} * blockDim.y) {
    const int64_t row = base + threadIdx.y;
    const bool active = row < rows;
    // Every load of the row is issued before any is used; packs stay raw (bf16 in half the
    // registers of floats) and are unpacked again for dx.
    Pack<N, Tx> xs[P];
    Pack<N, Tdy> dys[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int k = threadIdx.x + p * blockDim.x;
      if (active && k < packs) {
        xs[p] = load_pack<N>(x + row * d + int64_t{k} * N);
        dys[p] = load_pack<N>(dy + row * d + int64_t{k} * N);
      }
    }
    const float inv = active ? inv_rms[row] : 0.f;
    float dot = 0.f;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int k = threadIdx.x + p * blockDim.x;
      if (active && k < packs) {
        float x_hat[N], dyv[N], w[N];
        unpack(xs[p], x_hat);
        unpack(dys[p], dyv);
        load_floats<N>(weight + int64_t{k} * N, w);  // L1-resident: every row reads the same
#pragma unroll
        for (int i = 0; i < N; ++i) {
          x_hat[i] *= inv;
          dot += (w[i] * dyv[i]) * x_hat[i];
          mine[i * slots + p * blockDim.x] += dyv[i] * x_hat[i];
        }
      }
    }
    const float mean_dot = row_sum(dot, warp_sums) / static_cast<float>(d);
    if (!active) continue;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int k = threadIdx.x + p * blockDim.x;
      if (k < packs) {
        float xv[N], dyv[N], w[N], out[N];
        unpack(xs[p], xv);
        unpack(dys[p], dyv);
        load_floats<N>(weight + int64_t{k} * N, w);
#pragma unroll
        for (int i = 0; i < N; ++i) out[i] = inv * (w[i] * dyv[i] - (xv[i] * inv) * mean_dot);
        store_floats<N>(dx + row * d + int64_t{k} * N, out);
      }
    }
  }
  // The block's rows, added in row order (a fixed order: the same bits every run).
  __syncthreads();
  if (threadIdx.y != 0) return;
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const int k = threadIdx.x + p * blockDim.x;
    if (k < packs) {
      float total[N];
#pragma unroll
      for (int i = 0; i < N; ++i) {
        total[i] = 0.f;
        for (unsigned r = 0; r < blockDim.y; ++r) total[i] += column_sums[(r * N + i) * slots + k];
      }
      store_floats<N>(partial + int64_t{blockIdx.x} * d + int64_t{k} * N, total);
    }
  }
}

// dweight[c] = sum over the backward's blocks of partial[b][c], in a fixed order. 32 columns a
// block (128-byte rows of the partials), 32 threads down each column, then one sums the 32.
constexpr int kSumColumns = 32;
constexpr int kSumSlices = 32;
__global__ void __launch_bounds__(kSumColumns* kSumSlices)
    column_sum_kernel(const float* __restrict__ partial, int blocks, int d, float* __restrict__ out) {
  __shared__ float sums[kSumSlices][kSumColumns + 1];
  const int c = blockIdx.x * kSumColumns + threadIdx.x;
  float s = 0.f;
  if (c < d) {
#pragma unroll 4
    for (int b = threadIdx.y; b < blocks; b += kSumSlices) s += partial[int64_t{b} * d + c];
  }
  sums[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < d) {
    float total = 0.f;
    for (int i = 0; i < kSumSlices; ++i) total += sums[i][threadIdx.x];
    out[c] = total;
  }
}

// How a row is split: N elements a pack, P packs a thread, `threads` threads a row, `rows`
// rows a block.
struct RowLayout {
  int n = 1, p = 1, threads = 32, rows = 1;
};

int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

RowLayout choose_layout(int64_t d, int n, int block_threads) {
  RowLayout layout;
  layout.n = n;
  const int packs = static_cast<int>(d / n);
  const int max_p = n == 1 ? 8 : 16 / n;  // at most 16 values a thread (backward registers)
  const int most_threads = n == 1 ? max_threads<1>() : max_threads<4>();
  if (packs <= 32 * max_p) {
    // One warp a row: no shared memory or block sync in the reduction.
    layout.threads = 32;
    while (layout.p * 32 < packs) layout.p *= 2;
  } else {
    // The fewest packs a thread that keep a row within 256 threads, else the most packs.
    for (layout.p = 1;; layout.p *= 2) {
      layout.threads = 32 * ceil_div(ceil_div(packs, layout.p), 32);
      if (layout.threads <= kRowThreads || layout.p == max_p) break;
    }
    if (layout.threads > most_threads) {
      throw std::runtime_error("rms norm: rows of " + std::to_string(d) + " elements are longer than the kernels take (" +
                               std::to_string(kRmsNormMaxD) + ")");
    }
  }
  layout.rows = std::max(1, block_threads / layout.threads);
  return layout;
}

void check_sizes(int64_t rows, int64_t d) {
  if (rows < 0 || d < 1 || d > kRmsNormMaxD) {
    throw std::runtime_error("rms norm: cannot take " + std::to_string(rows) + " rows of " + std::to_string(d) +
                             " elements (rows of 1 to " + std::to_string(kRmsNormMaxD) + ")");
  }
}

// The kernel of a layout, for element types picked at run time (only the P each N allows exist).
template <template <class, class, int, int> class Kernel, class A, class B, int N>
auto pick(int p) {
  std::decay_t<decltype(Kernel<A, B, N, 1>::run)> kernel = nullptr;
  switch (p) {
    case 1: kernel = Kernel<A, B, N, 1>::run; break;
    case 2: kernel = Kernel<A, B, N, 2>::run; break;
    case 4:
      if constexpr (N <= 4) kernel = Kernel<A, B, N, 4>::run;
      break;
    case 8:
      if constexpr (N == 1) kernel = Kernel<A, B, N, 8>::run;
      break;
  }
  if (kernel == nullptr) throw std::logic_error("rms norm: no kernel for this layout");
  return kernel;
}

template <class Tx, class Ty, int N, int P>
struct Forward {
  static constexpr auto run = rms_norm_forward_kernel<Tx, Ty, N, P>;
};
template <class Tdy, class Tx, int N, int P>
struct Backward {
  static constexpr auto run = rms_norm_backward_kernel<Tdy, Tx, N, P>;
};

// The backward's grid is one wave of resident blocks (at most this many an SM), each looping
// over rows: every block adds a partial dweight row, so no more blocks than run at once.
constexpr int kMaxBackwardBlocksPerSm = 4;

template <class Kernel>
int backward_grid(Kernel kernel, dim3 block, size_t smem, int64_t rows) {
  int resident = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, static_cast<int>(block.x * block.y), smem),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor(rms norm backward)");
  const int64_t per_sm = std::min(std::max(resident, 1), kMaxBackwardBlocksPerSm);
  return static_cast<int>(std::min<int64_t>(ceil_div(rows, block.y), per_sm * multiprocessor_count()));
}

}  // namespace

void rms_norm_forward_cuda(const void* x, ElementType x_type, const float* weight, void* y, ElementType y_type,
                           float* inv_rms, int64_t rows, int64_t d, float eps, cudaStream_t stream) {
  check_sizes(rows, d);
  if (rows == 0) return;
  const int per_vector = 16 / element_bytes(x_type);
  const bool vectorised = d % per_vector == 0 && aligned16(x) && aligned16(y) && aligned16(weight);
  const RowLayout layout = choose_layout(d, vectorised ? per_vector : 1, kForwardBlockThreads);
  const dim3 block(layout.threads, layout.rows);
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>((rows + layout.rows - 1) / layout.rows, INT_MAX)));
  with_element_type(x_type, [&](auto xt) {
    with_element_type(y_type, [&](auto yt) {
      using Tx = typename decltype(xt)::type;
      using Ty = typename decltype(yt)::type;
      const auto launch = [&](auto kernel) {
        kernel<<<grid, block, 0, stream>>>(static_cast<const Tx*>(x), weight, static_cast<Ty*>(y), inv_rms, rows,
                                           static_cast<int>(d), eps);
      };
      if (layout.n == 1) {
        launch(pick<Forward, Tx, Ty, 1>(layout.p));
      } else {
        launch(pick<Forward, Tx, Ty, static_cast<int>(16 / sizeof(Tx))>(layout.p));
      }
    });
  });
  check_cuda(cudaGetLastError(), "launch of the rms norm forward");
}

int64_t rms_norm_backward_workspace_floats(int64_t rows, int64_t d) {
  // backward_grid's bound for any kernel and layout.
  return std::min<int64_t>(std::max<int64_t>(rows, 0), int64_t{kMaxBackwardBlocksPerSm} * multiprocessor_count()) * d;
}

void rms_norm_backward_cuda(const void* dy, ElementType dy_type, const void* x, ElementType x_type,
                            const float* weight, const float* inv_rms, void* dx, float* dweight, float* workspace,
                            int64_t rows, int64_t d, cudaStream_t stream) {
  check_sizes(rows, d);
  if (rows == 0) {  // no rows: dweight is a sum of nothing
    check_cuda(cudaMemsetAsync(dweight, 0, sizeof(float) * d, stream), "cudaMemsetAsync(dweight)");
    return;
  }
  const int per_vector = 16 / element_bytes(x_type);
  const bool vectorised = d % per_vector == 0 && aligned16(dy) && aligned16(x) && aligned16(dx) &&
                          aligned16(weight) && aligned16(workspace);
  const RowLayout layout = choose_layout(d, vectorised ? per_vector : 1, kBackwardBlockThreads);
  const dim3 block(layout.threads, layout.rows);
  // The column sums: every thread's share of a row, for each row of the block (<= 32 KiB).
  const size_t smem = sizeof(float) * layout.threads * layout.p * layout.n * layout.rows;
  int blocks = 0;
  with_element_type(dy_type, [&](auto dyt) {
    with_element_type(x_type, [&](auto xt) {
      using Tdy = typename decltype(dyt)::type;
      using Tx = typename decltype(xt)::type;
      const auto launch = [&](auto kernel) {
        blocks = backward_grid(kernel, block, smem, rows);
        kernel<<<blocks, block, smem, stream>>>(static_cast<const Tdy*>(dy), static_cast<const Tx*>(x), weight,
                                             inv_rms, static_cast<Tx*>(dx), workspace, rows, static_cast<int>(d));
      };
      if (layout.n == 1) {
        launch(pick<Backward, Tdy, Tx, 1>(layout.p));
      } else {
        launch(pick<Backward, Tdy, Tx, static_cast<int>(16 / sizeof(Tx))>(layout.p));
      }
    });
  });
  check_cuda(cudaGetLastError(), "launch of the rms norm backward");
  const dim3 sum_block(kSumColumns, kSumSlices);
  column_sum_kernel<<<ceil_div(d, kSumColumns), sum_block, 0, stream>>>(workspace, blocks, static_cast<int>(d),
                                                                        dweight);
  check_cuda(cudaGetLastError(), "launch of the rms norm dweight sum");
}

}  // namespace stepscope::kernels
