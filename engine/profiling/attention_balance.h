// Softmax against the attention matrix multiplies in the forward pass: GPU time per step
// beside the FLOPs each does, the comparison the handout's nsys question asks for.
#pragma once

#include <cstdint>
#include <optional>

#include "profiling/kernel_profile.h"

namespace stepscope::profiling {

struct AttentionBalance {
  double softmax_ns_per_step = 0;  // GPU time of the "softmax" ranges
  double matmul_ns_per_step = 0;   // matrix-multiply kernels of "attention scores" and "final matmul"
  // Attention-matmul FLOPs per softmax FLOP: per score, Q·Kᵀ and P·V do 2·d_head each, while
  // softmax does about five (max, subtract, exp, sum, divide).
  double flops_ratio = 0;
  double time_ratio() const { return softmax_ns_per_step > 0 ? matmul_ns_per_step / softmax_ns_per_step : 0; }
};

inline constexpr double kSoftmaxFlopsPerScore = 5.0;

// Empty when the profile holds no GPU time for those ranges (CPU runs, unprofiled runs).
std::optional<AttentionBalance> attention_balance(const KernelProfile& profile, int64_t d_head);

}  // namespace stepscope::profiling
