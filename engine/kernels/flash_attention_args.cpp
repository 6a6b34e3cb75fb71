#include "kernels/flash_attention_args.h"

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace stepscope::kernels {

namespace {

// The kernels instantiate tile widths 32, 64, 96 and 128 and zero-pad smaller head dims up
// to the next one; 16-byte vector loads need head_dim to be a multiple of 8 elements.
constexpr int64_t kHeadDimStep = 8;
constexpr int64_t kMaxHeadDim = 128;

// Kernels index rows and tiles with 32-bit ints; keeping sequences below 2^30 leaves room for
// "start + tile" sums without overflow.
constexpr int64_t kMaxSeq = int64_t{1} << 30;
// The smallest tile any kernel uses (rows or keys per CTA); grids are tiles * batch * heads
// blocks on grid.x, which takes at most 2^31 - 1.
constexpr int64_t kSmallestTile = 32;
constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();

bool multiply_fits(int64_t a, int64_t b, int64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

std::string supported_list() {
  std::ostringstream text;
  const std::vector<int64_t> dims = flash_supported_head_dims();
  for (size_t i = 0; i < dims.size(); ++i) text << (i ? ", " : "") << dims[i];
  return text.str();
}

}  // namespace

std::vector<int64_t> flash_supported_head_dims() {
  std::vector<int64_t> dims;
  for (int64_t d = kHeadDimStep; d <= kMaxHeadDim; d += kHeadDimStep) dims.push_back(d);
  return dims;
}

std::string flash_shape_problem(const AttentionShape& shape) {
  // The stream only on a refusal: this check runs on every call.
  if (shape.batch < 1 || shape.heads < 1 || shape.seq_q < 1 || shape.seq_k < 1) {
    std::ostringstream why;
    why << "attention shape batch " << shape.batch << ", heads " << shape.heads << ", seq_q "
        << shape.seq_q << ", seq_k " << shape.seq_k
        << " is not supported by the flash kernels (each must be at least 1)";
    return why.str();
  }
  if (shape.head_dim < kHeadDimStep || shape.head_dim > kMaxHeadDim ||
      shape.head_dim % kHeadDimStep != 0) {
    std::ostringstream why;
    why << "head dim " << shape.head_dim << " is not supported by the flash kernels (supported: "
        << supported_list() << ")";
    return why.str();
  }
  if (shape.seq_q > kMaxSeq || shape.seq_k > kMaxSeq) {
    std::ostringstream why;
    why << "sequence lengths seq_q " << shape.seq_q << ", seq_k " << shape.seq_k
        << " are too long for the flash kernels (at most " << kMaxSeq << ")";
    return why.str();
  }
  int64_t batch_heads = 0;
  int64_t blocks = 0;
  const int64_t longest = shape.seq_q > shape.seq_k ? shape.seq_q : shape.seq_k;
  const int64_t tiles = (longest + kSmallestTile - 1) / kSmallestTile;
  if (!multiply_fits(shape.batch, shape.heads, batch_heads) ||
      !multiply_fits(batch_heads, tiles, blocks) || blocks > kMaxGridX) {
    std::ostringstream why;
    why << "batch " << shape.batch << " x heads " << shape.heads << " x seq " << longest
        << " needs more thread blocks than a CUDA grid takes (split the batch)";
    return why.str();
  }
  // Every dense tensor and the workspace (batch*heads*seq*(head_dim+1) floats) must be
  // addressable with 64-bit element offsets.
  int64_t rows = 0;
  int64_t elements = 0;
  const int64_t longest_row = shape.head_dim + 1;
  if (!multiply_fits(batch_heads, longest, rows) || !multiply_fits(rows, longest_row, elements) ||
      elements > std::numeric_limits<int64_t>::max() / 8) {
    std::ostringstream why;
    why << "attention tensors of batch " << shape.batch << ", heads " << shape.heads << ", seq "
        << longest << ", head dim " << shape.head_dim << " are too large to index";
    return why.str();
  }
  return {};
}

// 0 for shapes flash_shape_problem refuses. Layout: the dQ accumulator,
// (batch, heads, seq_q, head_dim) contiguous, then rowsum(dO * O) as (batch, heads, seq_q).
int64_t flash_backward_workspace_floats(const AttentionShape& shape) {
  if (!flash_shape_problem(shape).empty()) return 0;
  const int64_t rows = shape.batch * shape.heads * shape.seq_q;
  return rows * shape.head_dim + rows;
}

}  // namespace stepscope::kernels
