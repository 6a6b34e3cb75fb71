#include "runners/training_step.h"

#include <optional>

#include <torch/torch.h>

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "model/loss.h"
#include "profiling/range_recorder.h"
#include "profiling/step_ranges.h"

namespace stepscope {

namespace {

std::optional<c10::ScalarType> autocast_dtype(Precision precision) {
  switch (precision) {
    case Precision::fp32: return std::nullopt;
    case Precision::bf16: return c10::kBFloat16;
    case Precision::fp16: return c10::kHalf;
  }
  return std::nullopt;
}

}  // namespace

void TrainingStep::check_precision(Precision precision, c10::Device device) {
  const auto dtype = autocast_dtype(precision);
  if (dtype && !compat::autocast_supported(device.type(), *dtype)) {
    throw ConfigError(to_string(precision) + " autocast is not available on " + device.str() + " with LibTorch " +
                      compat::libtorch_version());
  }
}

TrainingStep::TrainingStep(const BenchConfig& config, c10::Device device) : config_(config), device_(device) {
  validate(config);  // among others: the model's context covers the run's
  check_precision(config.precision, device);
  torch::manual_seed(config.seed);
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  model_ = TransformerLM(config.model, options);
  parameters_ = model_->parameters();
  if (runs_optimizer(config.mode)) optimizer_ = std::make_unique<AdamW>(parameters_);
  if (config.precision == Precision::fp16 && runs_backward(config.mode)) scaler_ = std::make_unique<LossScaler>();
  const auto ids = torch::TensorOptions().dtype(torch::kInt64).device(device);
  inputs_ = torch::randint(config.model.vocab_size, {config.batch, config.context}, ids);
  targets_ = torch::randint(config.model.vocab_size, {config.batch, config.context}, ids);
}

void TrainingStep::label_memory(profiling::AllocationRecorder& recorder) const {
  using profiling::MemoryCategory;
  // With the storage's own size, so the allocator's rounding shows apart from the tensors.
  const auto label = [&](const at::Tensor& t, MemoryCategory category) {
    recorder.label(t.data_ptr(), category, static_cast<int64_t>(t.storage().nbytes()));
  };
  for (size_t i = 0; i < parameters_.size(); ++i) {
    label(parameters_[i], MemoryCategory::parameter);
    if (parameters_[i].grad().defined()) label(parameters_[i].grad(), MemoryCategory::gradient);
    if (optimizer_ && optimizer_->first_moment(i).defined()) {
      label(optimizer_->first_moment(i), MemoryCategory::optimizer_state);
      label(optimizer_->second_moment(i), MemoryCategory::optimizer_state);
    }
  }
  label(inputs_, MemoryCategory::input);
  label(targets_, MemoryCategory::input);
}

void TrainingStep::run(StepClock& clock) {
  for (auto& p : parameters_) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
  using profiling::ScopedRange;
  clock.start();
  at::Tensor loss;
  {
    ScopedRange range(profiling::step_ranges::kForward);
    std::optional<compat::AutocastGuard> autocast;
    if (const auto dtype = autocast_dtype(config_.precision)) autocast.emplace(device_.type(), *dtype);
    const auto logits = model_(inputs_);
    ScopedRange loss_range("loss");
    loss = mean_cross_entropy(logits, targets_);
  }
  clock.end_forward();
  if (!runs_backward(config_.mode)) return;
  {
    ScopedRange range(profiling::step_ranges::kBackward);
    (scaler_ ? scaler_->scale(loss) : loss).backward();
  }
  clock.end_backward();
  if (!runs_optimizer(config_.mode)) return;
  {
    ScopedRange range(profiling::step_ranges::kOptimizerStep);
    const bool overflow = scaler_ && scaler_->unscale_and_check(parameters_);
    if (!overflow) optimizer_->step();
    if (scaler_) scaler_->update(overflow);
  }
  clock.end_optimizer();
}

}  // namespace stepscope
