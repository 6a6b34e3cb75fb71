// cross_entropy_rows: the argument checks, the LibTorch reference (any device; what the CUDA
// kernel is tested against and what CPU builds run) and the dispatch to the kernel.
//
// Targets are never read on the host (on a GPU that would wait for it and break CUDA-graph
// capture): a target outside [0, vocab) gives its row a NaN loss and, when a gradient is asked
// for, a NaN gradient row, in the reference as in the kernel.
#include "model/fused/linear_cross_entropy.h"

#include <limits>
#include <string>

#include <torch/torch.h>

#include "core/config_error.h"
#ifdef STEPSCOPE_WITH_CUDA
#include "model/fused/cuda/cross_entropy_rows_gpu.h"
#endif

namespace stepscope::fused {

namespace {

std::string shape_text(const at::Tensor& t) {
  std::string text = "(";
  for (int64_t i = 0; i < t.dim(); ++i) text += (i ? ", " : "") + std::to_string(t.size(i));
  return text + ")";
}

bool is_kernel_type(c10::ScalarType type) {
  return type == at::kFloat || type == at::kBFloat16 || type == at::kHalf;
}

void check_rows_inputs(const at::Tensor& logits, const at::Tensor& targets, const at::Tensor& losses) {
  const auto refuse = [&](const std::string& why) {
    throw ConfigError("cross-entropy rows cannot take logits " + shape_text(logits) + ", targets " +
                      shape_text(targets) + ", losses " + shape_text(losses) + ": " + why);
  };
  if (logits.dim() != 2) refuse("logits must be [rows, vocab]");
  if (logits.size(1) < 1) refuse("vocab must be at least 1");
  if (!is_kernel_type(logits.scalar_type())) refuse("logits must be float32, bfloat16 or float16");
  if (targets.dim() != 1 || targets.size(0) != logits.size(0)) refuse("targets must be [rows]");
  if (targets.scalar_type() != at::kLong) refuse("targets must be int64");
  if (losses.dim() != 1 || losses.size(0) != logits.size(0)) refuse("losses must be [rows]");
  if (losses.scalar_type() != at::kFloat) refuse("losses must be float32");
  if (targets.device() != logits.device() || losses.device() != logits.device()) {
    refuse("logits, targets and losses must be on one device");
  }
}

}  // namespace

void cross_entropy_rows_reference(at::Tensor& logits, const at::Tensor& targets, at::Tensor& losses,
                                  double grad_scale) {
  const int64_t vocab = logits.size(1);
  const auto valid = targets.ge(0).logical_and(targets.lt(vocab));
  const auto safe_targets = targets.clamp(0, vocab - 1).unsqueeze(1);
  // fp32 statistics whatever the logits' type; `x` is the logits themselves when they are fp32.
  at::Tensor x = logits.to(at::kFloat);
  const auto lse = at::logsumexp(x, {1});
  const auto picked = x.gather(1, safe_targets).squeeze(1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  losses.copy_((lse - picked).masked_fill_(valid.logical_not(), nan));
  if (grad_scale == 0) return;
  // softmax - one_hot, scaled, computed in place in x (a copy unless the logits are fp32).
  x.sub_(lse.unsqueeze(1)).exp_();
  x.scatter_add_(1, safe_targets, at::full({x.size(0), 1}, -1.0, x.options()));
  x.mul_(grad_scale);
  x.masked_fill_(valid.logical_not().unsqueeze(1), nan);
  if (!x.is_same(logits)) logits.copy_(x);
}

void cross_entropy_rows(at::Tensor& logits, const at::Tensor& targets, at::Tensor& losses, double grad_scale) {
  check_rows_inputs(logits, targets, losses);
  if (logits.is_cuda()) {
#ifdef STEPSCOPE_WITH_CUDA
    cross_entropy_rows_gpu(logits, targets, losses, grad_scale);
    return;
#endif
  }
  cross_entropy_rows_reference(logits, targets, losses, grad_scale);
}

}  // namespace stepscope::fused
