#include "profiling/attention_balance.h"

namespace stepscope::profiling {

namespace {

int64_t matmul_ns(const KernelProfile& profile, const char* range) {
  const auto* summary = find_range(profile, range);
  if (!summary) return 0;
  for (const auto& share : summary->categories) {
    if (share.category == KernelCategory::matrix_multiply) return share.total_ns;
  }
  return 0;
}

}  // namespace

std::optional<AttentionBalance> attention_balance(const KernelProfile& profile, int64_t d_head) {
  const auto* softmax = find_range(profile, "softmax");
  const int64_t matmul = matmul_ns(profile, "attention scores") + matmul_ns(profile, "final matmul");
  if (!softmax || softmax->gpu_time_ns <= 0 || matmul <= 0 || profile.measured_steps <= 0 || d_head <= 0) {
    return std::nullopt;
  }
  AttentionBalance balance;
  balance.softmax_ns_per_step = static_cast<double>(softmax->gpu_time_ns) / profile.measured_steps;
  balance.matmul_ns_per_step = static_cast<double>(matmul) / profile.measured_steps;
  balance.flops_ratio = 4.0 * static_cast<double>(d_head) / kSoftmaxFlopsPerScore;
  return balance;
}

}  // namespace stepscope::profiling
