#include "runners/training_step.h"

#include <optional>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "model/fused/fused_adamw.h"
#include "model/fused/fused_lm.h"
#include "profiling/range_recorder.h"
#include "profiling/step_ranges.h"
#include "runners/engine_model.h"

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

TrainingStep::TrainingStep(const BenchConfig& config, c10::Device device) : config_(config) {
  validate(config);  // among others: the model's context covers the run's
  check_precision(config.precision, device, config.engine);
  // Seeds the generator from config.seed, then builds: the batch below draws after the weights.
  model_ = std::make_unique<EngineModel>(config.engine, config.model, config.precision, config.seed, device);
  parameters_ = model_->parameters();
  FusedTransformerLM* fused = model_->fused();
  if (runs_optimizer(config.mode)) {
    if (fused) {
      fused_optimizer_ =
          std::make_unique<fused::FusedAdamW>(fused->flat_parameters(), parameters_, model_->copy_to_refresh());
    } else {
      optimizer_ = std::make_unique<AdamW>(parameters_);
    }
  }
  if (config.precision == Precision::fp16 && runs_backward(config.mode)) scaler_ = std::make_unique<LossScaler>();
  // bf16: the projections' gradients stay bf16, in one buffer (as autocast's matmuls make them,
  // so the same values). Not fp16: its loss scaler unscales the gradients in their own type.
  if (fused && config.precision == Precision::bf16 && runs_backward(config.mode)) {
    fused->set_gradient_buffer(at::empty_like(fused->compute_copy()));
  }
  if (fused && config.cuda_graphs && device.is_cuda()) {
    if (scaler_) {
      graphs_refusal_ = "CUDA graphs off: fp16 loss scaling reads the gradients' overflow on the host each step";
    } else if (config.warmup_steps < kGraphWarmupSteps) {
      graphs_refusal_ = "CUDA graphs off: they are captured in warm-up, which needs at least " +
                        std::to_string(kGraphWarmupSteps) + " steps";
    } else {
      graphs_ = make_step_graphs(device);
    }
  }
  const auto ids = torch::TensorOptions().dtype(torch::kInt64).device(device);
  inputs_ = torch::randint(config.model.vocab_size, {config.batch, config.context}, ids);
  targets_ = torch::randint(config.model.vocab_size, {config.batch, config.context}, ids);
}

TrainingStep::~TrainingStep() = default;

torch::nn::Module& TrainingStep::module() { return model_->module(); }

double TrainingStep::last_loss() const { return loss_.defined() ? loss_.item<double>() : 0.0; }

void TrainingStep::label_memory(profiling::AllocationRecorder& recorder) const {
  using profiling::MemoryCategory;
  // By the allocation each tensor lives in (the fused engine's parameters are views of one
  // buffer, its gradients views of one product), with the allocation's own size.
  const auto label = [&](const at::Tensor& t, MemoryCategory category) {
    recorder.label(t.storage().data(), category, static_cast<int64_t>(t.storage().nbytes()));
  };
  const FusedTransformerLM* fused = model_->fused();
  if (fused) {
    label(fused->flat_parameters(), MemoryCategory::parameter);
    label(fused->compute_copy(), MemoryCategory::parameter);
    if (fused_optimizer_) {
      label(fused_optimizer_->first_moment(), MemoryCategory::optimizer_state);
      label(fused_optimizer_->second_moment(), MemoryCategory::optimizer_state);
    }
  }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!fused) label(parameters_[i], MemoryCategory::parameter);
    if (parameters_[i].grad().defined()) label(parameters_[i].grad(), MemoryCategory::gradient);
    if (optimizer_ && optimizer_->first_moment(i).defined()) {
      label(optimizer_->first_moment(i), MemoryCategory::optimizer_state);
      label(optimizer_->second_moment(i), MemoryCategory::optimizer_state);
    }
  }
  label(inputs_, MemoryCategory::input);
  label(targets_, MemoryCategory::input);
}

// Eager under autocast with a "loss" range around the cross-entropy; fused in its own types.
at::Tensor TrainingStep::forward_loss() { return model_->loss(inputs_, targets_); }

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

void TrainingStep::capture_graphs() {
  // Gradients are made inside the graphs' pool, where every replay rewrites them in place.
  for (auto& p : parameters_) p.mutable_grad() = at::Tensor();
  graphs_->capture(StepPhaseGraph::forward, [&] { graph_loss_ = forward_loss(); });
  if (runs_backward(config_.mode)) graphs_->capture(StepPhaseGraph::backward, [&] { graph_loss_.backward(); });
  if (model_->fused()) model_->fused()->attach_gradient_buffer();
  if (runs_optimizer(config_.mode)) graphs_->capture(StepPhaseGraph::optimizer, [&] { fused_optimizer_->step(); });
}

// The phases as graph launches; ranges mark them so kernel summaries attribute each graph's
// kernels to its phase (the ranges inside a phase are not seen under a graph).
void TrainingStep::replay_graphs(StepClock& clock) {
  using profiling::ScopedRange;
  clock.start();
  {
    ScopedRange range(profiling::step_ranges::kForward);
    graphs_->replay(StepPhaseGraph::forward);
  }
  loss_ = graph_loss_.detach();
  clock.end_forward();
  if (!runs_backward(config_.mode)) return;
  {
    ScopedRange range(profiling::step_ranges::kBackward);
    graphs_->replay(StepPhaseGraph::backward);
  }
  clock.end_backward();
  if (!runs_optimizer(config_.mode)) return;
  {
    ScopedRange range(profiling::step_ranges::kOptimizerStep);
    graphs_->replay(StepPhaseGraph::optimizer);
  }
  clock.end_optimizer();
}

// A fresh batch for step `step`, the same for both engines: drawn on the CPU from the run's seed
// and copied into the same tensors (a graph's inputs stay where it was captured).
void TrainingStep::next_batch(int64_t step) {
  auto generator = at::detail::createCPUGenerator(config_.seed * 1000003 + 101 + static_cast<uint64_t>(step));
  const auto ids = torch::TensorOptions().dtype(torch::kInt64);
  const int64_t vocab = config_.model.vocab_size;
  inputs_.copy_(at::randint(vocab, {config_.batch, config_.context}, generator, ids));
  targets_.copy_(at::randint(vocab, {config_.batch, config_.context}, generator, ids));
}

void TrainingStep::run(StepClock& clock) {
  const int64_t step = steps_run_++;
  if (config_.record_losses) next_batch(step);
  if (graphs_) {
    if (step == kGraphWarmupSteps - 1) capture_graphs();
    if (graphs_->captured(StepPhaseGraph::forward)) {
      replay_graphs(clock);
      return;
    }
  }
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
  if (model_->fused()) model_->fused()->attach_gradient_buffer();
  clock.end_backward();
  if (!runs_optimizer(config_.mode)) return;
  {
    ScopedRange range(profiling::step_ranges::kOptimizerStep);
    optimizer_step();
  }
  clock.end_optimizer();
}

}  // namespace stepscope
