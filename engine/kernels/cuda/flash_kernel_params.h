// What the flash kernels receive: plain pointers, 64-bit strides and 32-bit sizes (the shape
// check keeps sizes and tile counts within int). Built on the host from the public args.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FLASH_HOST_DEVICE __host__ __device__
#else
#define FLASH_HOST_DEVICE
#endif

namespace stepscope::kernels::flash {

// A (batch, heads, seq, head_dim) view with a contiguous last dimension. Inputs are stored
// through the same type as outputs; kernels never write through an input's view.
struct TensorView {
  void* data = nullptr;
  int64_t batch_stride = 0;
  int64_t head_stride = 0;
  int64_t row_stride = 0;

  template <typename T>
  FLASH_HOST_DEVICE T* head(int batch, int head) const {
    return static_cast<T*>(data) + batch * batch_stride + head * head_stride;
  }
};

struct ForwardParams {
  TensorView q, k, v, o;
  float* lse = nullptr;  // (batch * heads, seq_q)
  int heads = 1;
  int seq_q = 1;
  int seq_k = 1;
  int head_dim = 64;
  int row_tiles = 1;   // query tiles per (batch, head)
  int head_group = 1;  // heads per group of the grid order (flash_grid_order.h)
  bool causal = false;
  bool vector_loads = true;  // every pointer and stride allows 16-byte accesses
  float scale = 1.f;
  float scale_log2 = 1.f;  // scale * log2(e)
  // Key splits (flash_key_splits.h): with gridDim.y above 1, CTA y of a query tile walks key
  // tiles [y * split_tiles, (y + 1) * split_tiles) and writes its normalised O and lse, fp32,
  // to (split, batch * heads, seq_q) rows of partial_o (partial_row_floats apart) and partial_lse;
  // the combine kernel then writes O and lse. block_m, block_n: the main kernel's tile sizes.
  int split_tiles = 0;
  int64_t rows = 1;  // batch * heads * seq_q
  int block_m = 64;
  int block_n = 64;
  float* partial_o = nullptr;
  float* partial_lse = nullptr;
};

struct BackwardParams {
  TensorView q, k, v, o, d_o, dq, dk, dv;
  const float* lse = nullptr;
  float* dq_accum = nullptr;  // (batch * heads, seq_q, head_dim) fp32, 16-byte aligned
  float* d_rowsum = nullptr;  // (batch * heads, seq_q): rowsum(dO * O)
  int heads = 1;
  int seq_q = 1;
  int seq_k = 1;
  int head_dim = 64;
  int key_tiles = 1;   // key tiles per (batch, head)
  int head_group = 1;  // heads per group of the grid order (flash_grid_order.h)
  // CTAs sharing each key tile's walk over the query tiles (gridDim.y of the fp32 main kernel);
  // above 1 they add their dK, dV into outputs the rowsum kernel zeroes.
  int query_splits = 1;
  int64_t rows = 1;   // batch * heads * seq_q
  bool causal = false;
  bool vector_loads = true;
  bool helper_vectors = false;  // O and dO rows allow 16-byte loads (rowsum kernel)
  bool dq_vectors = false;      // dQ allows 16-byte stores (conversion kernel)
  float scale = 1.f;
  float scale_log2 = 1.f;
};

}  // namespace stepscope::kernels::flash
