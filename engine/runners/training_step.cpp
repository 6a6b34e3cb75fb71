#include "runners/training_step.h"

#include <optional>

#include <torch/torch.h>

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "model/fused/fused_adamw.h"
#include "model/fused/fused_lm.h"
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

void TrainingStep::check_precision(Precision precision, c10::Device device, EngineKind engine) {
  const auto dtype = autocast_dtype(precision);
  if (!dtype) return;
  if (engine == EngineKind::fused) {
    // No autocast: the matmuls run in the type itself, which a CPU LibTorch has for bf16 only.
    if (device.is_cpu() && *dtype == c10::kHalf) {
      throw ConfigError("fp16 matmuls are not available on the CPU; the fused engine runs fp16 on a GPU", "precision");
    }
    return;
  }
  if (!compat::autocast_supported(device.type(), *dtype)) {
    throw ConfigError(to_string(precision) + " autocast is not available on " + device.str() + " with LibTorch " +
                      compat::libtorch_version());
  }
}

TrainingStep::TrainingStep(const BenchConfig& config, c10::Device device) : config_(config), device_(device) {
  validate(config);  // among others: the model's context covers the run's
  check_precision(config.precision, device, config.engine);
  torch::manual_seed(config.seed);
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  if (config.engine == EngineKind::fused) {
    fused_ = std::make_shared<FusedTransformerLM>(config.model, options,
                                                  autocast_dtype(config.precision).value_or(torch::kFloat32));
    parameters_ = fused_->parameters();
    if (runs_optimizer(config.mode)) {
      const auto& copy = fused_->compute_copy();
      fused_optimizer_ = std::make_unique<fused::FusedAdamW>(
          fused_->flat_parameters(), parameters_,
          copy.data_ptr() == fused_->flat_parameters().data_ptr() ? at::Tensor() : copy);
    }
  } else {
    model_ = TransformerLM(config.model, options);
    parameters_ = model_->parameters();
    if (runs_optimizer(config.mode)) optimizer_ = std::make_unique<AdamW>(parameters_);
  }
  if (config.precision == Precision::fp16 && runs_backward(config.mode)) scaler_ = std::make_unique<LossScaler>();
  const auto ids = torch::TensorOptions().dtype(torch::kInt64).device(device);
  inputs_ = torch::randint(config.model.vocab_size, {config.batch, config.context}, ids);
  targets_ = torch::randint(config.model.vocab_size, {config.batch, config.context}, ids);
}

TrainingStep::~TrainingStep() = default;

torch::nn::Module& TrainingStep::module() {
  if (fused_) return *fused_;
  return *model_;
}

double TrainingStep::last_loss() const { return loss_.defined() ? loss_.item<double>() : 0.0; }

void TrainingStep::label_memory(profiling::AllocationRecorder& recorder) const {
  using profiling::MemoryCategory;
  // By the allocation each tensor lives in (the fused engine's parameters are views of one
  // buffer, its gradients views of one product), with the allocation's own size.
  const auto label = [&](const at::Tensor& t, MemoryCategory category) {
    recorder.label(t.storage().data(), category, static_cast<int64_t>(t.storage().nbytes()));
  };
  if (fused_) {
    label(fused_->flat_parameters(), MemoryCategory::parameter);
    label(fused_->compute_copy(), MemoryCategory::parameter);
    if (fused_optimizer_) {
      label(fused_optimizer_->first_moment(), MemoryCategory::optimizer_state);
      label(fused_optimizer_->second_moment(), MemoryCategory::optimizer_state);
    }
  }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!fused_) label(parameters_[i], MemoryCategory::parameter);
    if (parameters_[i].grad().defined()) label(parameters_[i].grad(), MemoryCategory::gradient);
    if (optimizer_ && optimizer_->first_moment(i).defined()) {
      label(optimizer_->first_moment(i), MemoryCategory::optimizer_state);
      label(optimizer_->second_moment(i), MemoryCategory::optimizer_state);
    }
  }
  label(inputs_, MemoryCategory::input);
  label(targets_, MemoryCategory::input);
}

at::Tensor TrainingStep::forward_loss() {
  if (fused_) return fused_->loss(inputs_, targets_);  // computes in its own types: no autocast
  std::optional<compat::AutocastGuard> autocast;
  if (const auto dtype = autocast_dtype(config_.precision)) autocast.emplace(device_.type(), *dtype);
  const auto logits = model_(inputs_);
  profiling::ScopedRange loss_range("loss");
  return mean_cross_entropy(logits, targets_);
}

void TrainingStep::optimizer_step() {
  const bool overflow = scaler_ && scaler_->unscale_and_check(parameters_);
  if (!overflow) {
    if (fused_optimizer_) {
      fused_optimizer_->step();
    } else {
      optimizer_->step();
    }
  }
  if (scaler_) scaler_->update(overflow);
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
    loss = forward_loss();
  }
  loss_ = loss.detach();  // not the graph: a forward-only step frees it when `loss` goes
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
    optimizer_step();
  }
  clock.end_optimizer();
}

}  // namespace stepscope
