// Dynamic loss scaling for fp16 mixed precision, with the policy of torch.amp.GradScaler:
// multiply the loss before backward, unscale the gradients before the optimizer step,
// skip the step and halve the scale when a gradient overflowed, double it after
// `growth_interval` clean steps.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace stepscope {

struct LossScalerOptions {
  double initial_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};

class LossScaler {
 public:
  explicit LossScaler(LossScalerOptions options = {});

  at::Tensor scale(const at::Tensor& loss) const;
  // Divides every defined gradient by the scale; true when any of them holds inf or NaN.
  // One device synchronisation, for the whole list.
  bool unscale_and_check(const std::vector<at::Tensor>& parameters) const;
  // Adjusts the scale after a step (skipped or not).
  void update(bool found_non_finite);

  double current_scale() const { return scale_; }
  int64_t skipped_steps() const { return skipped_; }

 private:
  LossScalerOptions options_;
  double scale_;
  int64_t clean_steps_ = 0;
  int64_t skipped_ = 0;
};

}  // namespace stepscope
