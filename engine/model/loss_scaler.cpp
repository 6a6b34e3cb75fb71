#include "model/loss_scaler.h"

#include <stdexcept>

#include <torch/torch.h>

namespace stepscope {

LossScaler::LossScaler(LossScalerOptions options) : options_(options), scale_(options.initial_scale) {
  if (!(options_.initial_scale > 0.0) || !(options_.growth_factor > 1.0) || !(options_.backoff_factor > 0.0) ||
      !(options_.backoff_factor < 1.0) || options_.growth_interval <= 0) {
    throw std::invalid_argument("loss scaler: scale > 0, growth > 1, 0 < backoff < 1 and interval > 0 are required");
  }
}

at::Tensor LossScaler::scale(const at::Tensor& loss) const { return loss * scale_; }

bool LossScaler::unscale_and_check(const std::vector<at::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> grads;
  for (const auto& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return false;
  at::_foreach_mul_(grads, c10::Scalar(1.0 / scale_));
  at::Tensor any_bad = torch::zeros({}, grads.front().options().dtype(torch::kBool));
  for (const auto& g : grads) any_bad.logical_or_(torch::isfinite(g).logical_not().any());
  return any_bad.item<bool>();
}

void LossScaler::update(bool found_non_finite) {
  if (found_non_finite) {
    scale_ *= options_.backoff_factor;
    clean_steps_ = 0;
    ++skipped_;
    return;
  }
  if (++clean_steps_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    clean_steps_ = 0;
  }
}

}  // namespace stepscope
