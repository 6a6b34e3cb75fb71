// The FlashAttention-2 kernels' interface in plain C++ (no LibTorch, no CUDA headers), so the
// engine, the CPU build and the tests can name shapes, check them and give clear refusals.
//
// Tensors are (batch, heads, seq, head_dim) views given by element strides; the last
// dimension must be contiguous. (batch, seq, head_dim) is heads = 1.
// Causal masking is top-left aligned, as PyTorch's is_causal and the seeds' handout: query i
// sees keys 0..i (so every query row sees at least one key).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::kernels {

enum class ElementType { f32, f16, bf16 };

// Which kernels run. `fastest` takes Hopper's wgmma kernels on an sm_90 GPU where the type and
// layout allow them, fp32 on tensor cores (3xTF32) on any sm_80+ GPU, else the portable sm_80
// kernels; `portable` always takes the sm_80 ones (fp32 in exact FFMA), so checks and
// benchmarks can compare the two paths on one GPU.
enum class KernelPath { fastest, portable };

struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 1;
  int64_t seq_q = 1;
  int64_t seq_k = 1;
  int64_t head_dim = 64;
  bool causal = false;
};

// Element strides of a (batch, heads, seq, head_dim) view; head_dim's stride is 1.
struct Strides {
  int64_t batch = 0;
  int64_t head = 0;
  int64_t row = 0;
};

// Q, K, V and O share `type`; lse is fp32, contiguous (batch, heads, seq_q), natural log.
struct FlashForwardArgs {
  AttentionShape shape;
  ElementType type = ElementType::bf16;
  KernelPath path = KernelPath::fastest;
  float softmax_scale = 0;  // usually 1/sqrt(head_dim)
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  Strides q_strides, k_strides, v_strides, o_strides;
  // Scratch for key splits (see flash_forward_workspace_floats); null runs every walk unsplit.
  float* workspace = nullptr;
  // Chunks per query tile's walk over the keys: 0 lets the launcher choose, 1 never splits, N
  // asks for N (the kernel check covers the split path with it).
  int key_splits = 0;
};

// dQ, dK, dV have the inputs' type and the strides given. The workspace is fp32, contiguous,
// 16-byte aligned, of flash_backward_workspace_floats(shape) elements, and need not be zeroed.
struct FlashBackwardArgs {
  AttentionShape shape;
  ElementType type = ElementType::bf16;
  KernelPath path = KernelPath::fastest;
  float softmax_scale = 0;
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* o = nullptr;
  const void* d_o = nullptr;
  const float* lse = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  float* workspace = nullptr;
  Strides q_strides, k_strides, v_strides, o_strides, d_o_strides, dq_strides, dk_strides, dv_strides;
};

// The head dimensions the CUDA kernels take (the CPU reference takes any).
std::vector<int64_t> flash_supported_head_dims();
// Empty when the kernels take `shape`, else a sentence saying what is wrong and what is supported.
std::string flash_shape_problem(const AttentionShape& shape);
// fp32 elements of the backward pass's workspace (dQ accumulator and rowsum(dO * O)).
int64_t flash_backward_workspace_floats(const AttentionShape& shape);

}  // namespace stepscope::kernels
